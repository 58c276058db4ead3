import { signupSiteBodySchema, type SignupState } from '@atrium/contracts/signup';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useSubmitSite } from '../api/signup-state.ts';
import { useSiteAvailability } from '../api/site-availability.ts';
import { FormAlert } from './form-alert.tsx';

type SiteForm = z.input<typeof signupSiteBodySchema>;

/** Stage 1: organisation name and site name, with the live availability check. */
export function SiteStage({ state }: { state: SignupState }) {
  const submitSite = useSubmitSite();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const { register, handleSubmit, setError, watch, formState } = useForm<SiteForm>({
    resolver: zodResolver(signupSiteBodySchema),
    defaultValues: { organizationName: state.organizationName ?? '', siteName: state.siteName ?? '' },
  });
  const { errors, isSubmitting } = formState;
  const siteName = watch('siteName').trim();
  const availability = useSiteAvailability(siteName);
  const live = availability.data?.siteName === siteName ? availability.data : undefined;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await submitSite.mutateAsync(signupSiteBodySchema.parse(values));
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['organizationName', 'siteName']));
    }
  });

  const siteError = errors.siteName?.message ?? (live && !live.available ? live.message : undefined);
  const siteField = register('siteName', {
    // Site names are lowercase; typing capitals should not be an error.
    onChange: (event: { target: HTMLInputElement }) => {
      event.target.value = event.target.value.toLowerCase();
    },
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      <FormAlert heading="We could not save this step" error={failure} onClose={() => setFailure(null)} />
      <Form.Group className="mb-3" controlId="signup-organization">
        <Form.Label>Organisation name</Form.Label>
        <Form.Control
          {...register('organizationName')}
          autoComplete="organization"
          isInvalid={!!errors.organizationName}
          autoFocus
        />
        <Form.Control.Feedback type="invalid">{errors.organizationName?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="mb-4" controlId="signup-site">
        <Form.Label>Site name</Form.Label>
        <InputGroup hasValidation>
          <Form.Control
            {...siteField}
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            aria-describedby="signup-site-help"
            isInvalid={!!siteError}
            isValid={!siteError && live?.available === true}
          />
          <InputGroup.Text className="text-truncate atrium-site-suffix">
            .{state.siteBaseDomain}
          </InputGroup.Text>
          <Form.Control.Feedback type="invalid">{siteError}</Form.Control.Feedback>
          <Form.Control.Feedback type="valid">{live?.siteUrl} is available</Form.Control.Feedback>
        </InputGroup>
        <Form.Text id="signup-site-help">
          3 to 63 lowercase letters, digits and hyphens. Your site’s address; it cannot be changed later.
        </Form.Text>
      </Form.Group>
      <Button type="submit" className="w-100" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : 'Continue'}
      </Button>
    </Form>
  );
}
