import {
  INDUSTRIES,
  ORGANIZATION_SIZES,
  organizationProfileBodySchema,
  type OrganizationProfile,
  type OrganizationProfileInput,
} from '@atrium/contracts/organizations';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo, useState, type ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm, type Path } from 'react-hook-form';
import type { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { useUpdateOrganizationProfile } from '../api/organization-profile.ts';
import { browserTimeZone, countryOptions, timeZoneOptions } from './profile-options.ts';

type Values = { [K in keyof OrganizationProfileInput]-?: string };
const FIELDS: readonly Path<Values>[] = ['name', 'legalName', 'industry', 'size', 'country', 'timeZone'];

/**
 * The organisation profile form: the /organization page and the wizard's first step share it.
 * The site name is shown read-only: it was chosen at sign-up and is the organisation's address.
 */
export function OrganizationForm({
  profile,
  submitLabel,
  onSaved,
  extraActions,
}: {
  profile: OrganizationProfile;
  submitLabel: string;
  onSaved?: (profile: OrganizationProfile) => void | Promise<void>;
  extraActions?: ReactNode;
}) {
  const update = useUpdateOrganizationProfile();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const countries = useMemo(countryOptions, []);
  const initialZone = profile.timeZone ?? browserTimeZone();
  const zones = useMemo(() => timeZoneOptions(initialZone), [initialZone]);
  const { register, handleSubmit, setError, formState } = useForm<Values>({
    resolver: zodResolver(organizationProfileBodySchema) as never,
    defaultValues: {
      name: profile.name,
      legalName: profile.legalName ?? '',
      industry: profile.industry ?? '',
      size: profile.size ?? '',
      country: profile.country ?? '',
      timeZone: initialZone,
    },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    setSaved(false);
    try {
      const next = await update.mutateAsync(values);
      setSaved(true);
      await onSaved?.(next);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, FIELDS));
    }
  });

  const text = (name: Path<Values>, label: string, autoComplete?: string) => (
    <Form.Group className="col-md-6" controlId={`org-${name}`}>
      <Form.Label>{label}</Form.Label>
      <Form.Control {...register(name)} autoComplete={autoComplete} isInvalid={!!errors[name]} />
      <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
    </Form.Group>
  );
  const select = (name: Path<Values>, label: string, options: { value: string; label: string }[]) => (
    <Form.Group className="col-md-6" controlId={`org-${name}`}>
      <Form.Label>{label}</Form.Label>
      <Form.Select {...register(name)} isInvalid={!!errors[name]}>
        <option value="">Not given</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Form.Select>
      <Form.Control.Feedback type="invalid">{errors[name]?.message}</Form.Control.Feedback>
    </Form.Group>
  );

  return (
    <Form noValidate onSubmit={onSubmit}>
      {failure ? (
        <Alert variant="danger" dismissible onClose={() => setFailure(null)}>
          <Alert.Heading as="h2" className="h6">
            The profile was not saved
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
        </Alert>
      ) : null}
      <div className="row g-3 mb-4">
        {text('name', 'Organisation name', 'organization')}
        {text('legalName', 'Legal name')}
        {select(
          'industry',
          'Industry',
          INDUSTRIES.map((v) => ({ value: v, label: v })),
        )}
        {select(
          'size',
          'Size (people)',
          ORGANIZATION_SIZES.map((v) => ({ value: v, label: v })),
        )}
        {select('country', 'Country', countries)}
        {select(
          'timeZone',
          'Time zone',
          zones.map((z) => ({ value: z, label: z.replaceAll('_', ' ') })),
        )}
        <Form.Group className="col-12" controlId="org-site">
          <Form.Label>Site name</Form.Label>
          <Form.Control
            value={profile.siteName}
            readOnly
            className="bg-body-tertiary"
            aria-describedby="org-site-url"
          />
          <Form.Text id="org-site-url">
            Your site:{' '}
            <a href={profile.siteUrl} target="_blank" rel="noopener noreferrer">
              {profile.siteUrl}
            </a>
            . The site name was chosen at sign-up and cannot be changed.
          </Form.Text>
        </Form.Group>
      </div>
      <div className="d-flex flex-wrap gap-2 align-items-center">
        {extraActions}
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : submitLabel}
        </Button>
        <span role="status" className="text-success small">
          {saved && !onSaved ? 'Saved.' : ''}
        </span>
      </div>
    </Form>
  );
}
