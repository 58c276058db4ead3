import { addDomainBodySchema, type AddDomainBody, type DomainDetail } from '@atrium/contracts/domains';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../../lib/api-client.ts';
import { useAddDomain } from '../api/add-domain.ts';

export interface AddDomainFormProps {
  /** Called with the new domain (its TXT record included), e.g. to go on to verification. */
  onAdded: (domain: DomainDetail) => void | Promise<void>;
  submitLabel?: string;
  label?: string;
  /** Keeps field ids unique when the form is embedded (setup wizard). */
  idPrefix?: string;
  autoFocus?: boolean;
}

/**
 * Adds a domain. The server normalises the name (Unicode to punycode, lowercase, no trailing
 * dot) and names what is wrong with it; its message appears under the field.
 * Embedded by the domains page and by the setup wizard.
 */
export function AddDomainForm({
  onAdded,
  submitLabel = 'Add domain',
  label = 'Domain name',
  idPrefix = 'add-domain',
  autoFocus = false,
}: AddDomainFormProps) {
  const add = useAddDomain();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, formState } = useForm<AddDomainBody>({
    resolver: zodResolver(addDomainBodySchema),
    defaultValues: { name: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const { domain } = await add.mutateAsync(values);
      await onAdded(domain);
    } catch (error) {
      const apiError =
        error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) });
      const fieldMessage = apiError.fields?.name;
      if (fieldMessage) setError('name', { type: 'server', message: fieldMessage }, { shouldFocus: true });
      else setFailure(apiError);
    }
  });

  const error = formState.errors.name?.message;
  return (
    <Form noValidate onSubmit={onSubmit}>
      {failure ? (
        <Alert variant="danger" dismissible onClose={() => setFailure(null)}>
          <Alert.Heading as="h2" className="h6">
            {failure.code === 'domain_limit' ? 'Domain limit reached' : 'The domain was not added'}
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
        </Alert>
      ) : null}
      <Form.Group controlId={`${idPrefix}-name`} className="mb-3">
        <Form.Label>{label}</Form.Label>
        <Form.Control
          {...register('name')}
          placeholder="example.com"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          autoFocus={autoFocus}
          isInvalid={!!error}
          aria-describedby={`${idPrefix}-name-help`}
        />
        <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
        <Form.Text id={`${idPrefix}-name-help`}>
          A domain your organisation owns, such as example.com. Internationalised names like bücher.de work
          too.
        </Form.Text>
      </Form.Group>
      <Button
        type="submit"
        disabled={formState.isSubmitting}
        className="d-inline-flex align-items-center gap-2"
      >
        {formState.isSubmitting ? <Spinner animation="border" size="sm" aria-hidden="true" /> : null}
        {formState.isSubmitting ? 'Adding…' : submitLabel}
      </Button>
    </Form>
  );
}
