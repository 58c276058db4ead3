import { groupInputSchema, type GroupInput } from '@atrium/contracts/groups';
import { zodResolver } from '@hookform/resolvers/zod';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../../lib/api-client.ts';

/** One name field: creating a group and renaming one. Errors show under the field. */
export function GroupNameForm({
  id,
  label,
  submitLabel,
  defaultName = '',
  onSubmit,
  onCancel,
}: {
  id: string;
  label: string;
  submitLabel: string;
  defaultName?: string;
  onSubmit: (values: GroupInput) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const { register, handleSubmit, setError, reset, formState } = useForm<GroupInput>({
    resolver: zodResolver(groupInputSchema),
    defaultValues: { name: defaultName },
  });
  const submit = handleSubmit(async (values) => {
    try {
      await onSubmit(values);
      reset({ name: '' });
    } catch (error) {
      setError('name', {
        message: error instanceof ApiError ? (error.fields?.name ?? error.message) : String(error),
      });
    }
  });
  return (
    <Form noValidate onSubmit={submit}>
      <Form.Group controlId={id}>
        <Form.Label className={onCancel ? 'visually-hidden' : 'small mb-1'}>{label}</Form.Label>
        <InputGroup hasValidation>
          <Form.Control {...register('name')} isInvalid={!!formState.errors.name} autoComplete="off" />
          <Button type="submit" variant="primary" disabled={formState.isSubmitting}>
            {submitLabel}
          </Button>
          {onCancel ? (
            <Button variant="outline-secondary" onClick={onCancel}>
              Cancel
            </Button>
          ) : null}
          <Form.Control.Feedback type="invalid">{formState.errors.name?.message}</Form.Control.Feedback>
        </InputGroup>
      </Form.Group>
    </Form>
  );
}
