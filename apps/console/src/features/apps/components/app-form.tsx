import {
  MAX_REDIRECT_URIS,
  updateAppBodySchema,
  type AppGroup,
  type UpdateAppBody,
} from '@atrium/contracts/apps';
import { zodResolver } from '@hookform/resolvers/zod';
import { Plus, X } from 'lucide-react';
import { useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Form from 'react-bootstrap/Form';
import { Controller, useForm, type FieldPath } from 'react-hook-form';
import { ApiError } from '../../../lib/api-client.ts';
import { APP_HOST_HINT, urlHints } from './url-hints.ts';

/** `{launchUrl}` in the template's redirect URIs follows the launch URL until the admin edits them. */
export function redirectUrisFor(templates: string[], launchUrl: string): string[] {
  const base = launchUrl.trim().replace(/\/+$/, '');
  return templates.map((t) => t.replaceAll('{launchUrl}', base));
}

interface AppFormProps {
  defaultValues: UpdateAppBody;
  groups: AppGroup[];
  submitLabel: string;
  /** For a new install: redirect URIs derived from the launch URL while untouched. */
  redirectUriTemplates?: string[];
  /** For a new install: post-logout redirect URIs derived from the launch URL while untouched. */
  postLogoutRedirectUriTemplates?: string[];
  onSubmit: (values: UpdateAppBody) => Promise<unknown>;
}

/** Name, launch URL, redirect and logout URIs and who may open the app; install and change share it. */
export function AppForm({
  defaultValues,
  groups,
  submitLabel,
  redirectUriTemplates,
  postLogoutRedirectUriTemplates,
  onSubmit,
}: AppFormProps) {
  const form = useForm<UpdateAppBody>({ resolver: zodResolver(updateAppBodySchema), defaultValues });
  const { register, control, handleSubmit, setValue, watch, setError, formState } = form;
  const { errors, isSubmitting } = formState;
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [urisTouched, setUrisTouched] = useState(false);
  const [logoutUrisTouched, setLogoutUrisTouched] = useState(false);
  const redirectUris = watch('redirectUris');
  const postLogoutUris = watch('postLogoutRedirectUris') ?? [];
  const openToEveryone = watch('openToEveryone');
  // For a new install, the empty fields show the template's addresses (https://<your-host>/…).
  const installing = redirectUriTemplates !== undefined;
  const redirectHints = urlHints(redirectUriTemplates ?? []);
  const logoutHints = urlHints(postLogoutRedirectUriTemplates ?? []);

  const submit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await onSubmit(values);
    } catch (error) {
      if (error instanceof ApiError && error.fields && Object.keys(error.fields).length > 0) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<UpdateAppBody>, { message }, { shouldFocus: true });
        }
      } else {
        setFailure(
          error instanceof ApiError ? error : new ApiError(0, { code: 'error', message: String(error) }),
        );
      }
    }
  });

  const urisError = errors.redirectUris?.message ?? errors.redirectUris?.root?.message;
  const logoutUrisError =
    errors.postLogoutRedirectUris?.message ?? errors.postLogoutRedirectUris?.root?.message;

  return (
    <Form noValidate onSubmit={submit}>
      {failure ? (
        <Alert variant="danger" onClose={() => setFailure(null)} dismissible>
          <Alert.Heading as="h2" className="h6">
            The app could not be saved
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
        </Alert>
      ) : null}
      <Form.Group className="mb-3" controlId="app-title">
        <Form.Label>Name</Form.Label>
        <Form.Control {...register('title')} isInvalid={!!errors.title} />
        <Form.Control.Feedback type="invalid">{errors.title?.message}</Form.Control.Feedback>
        <Form.Text>Shown on the apps page and on the access page.</Form.Text>
      </Form.Group>

      <Form.Group className="mb-3" controlId="app-launch-url">
        <Form.Label>Launch URL</Form.Label>
        <Form.Control
          type="url"
          inputMode="url"
          placeholder={installing ? APP_HOST_HINT : 'https://app.example.com'}
          {...register('launchUrl', {
            onChange: (event: { target: { value: string } }) => {
              if (redirectUriTemplates && redirectUriTemplates.length > 0 && !urisTouched) {
                setValue('redirectUris', redirectUrisFor(redirectUriTemplates, event.target.value));
              }
              if (postLogoutRedirectUriTemplates && !logoutUrisTouched) {
                setValue(
                  'postLogoutRedirectUris',
                  redirectUrisFor(postLogoutRedirectUriTemplates, event.target.value),
                );
              }
            },
          })}
          isInvalid={!!errors.launchUrl}
        />
        <Form.Control.Feedback type="invalid">{errors.launchUrl?.message}</Form.Control.Feedback>
        <Form.Text>Where the app&apos;s tile takes people.</Form.Text>
      </Form.Group>

      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">Redirect URIs</legend>
        <p className="form-text mt-0 mb-2">
          Exact addresses the app receives sign-ins at: https:// (http:// only on localhost), no wildcards, no
          #fragment.
        </p>
        {redirectUris.map((_uri, index) => (
          <div key={index} className="mb-2">
            <div className="input-group">
              <Form.Control
                id={`app-redirect-uri-${index}`}
                aria-label={`Redirect URI ${index + 1}`}
                type="url"
                inputMode="url"
                placeholder={redirectHints[index] ?? redirectHints[0] ?? 'https://app.example.com/callback'}
                {...register(`redirectUris.${index}`, { onChange: () => setUrisTouched(true) })}
                isInvalid={!!errors.redirectUris?.[index]}
              />
              <button
                type="button"
                className="btn btn-outline-secondary"
                aria-label={`Remove redirect URI ${index + 1}`}
                disabled={redirectUris.length === 1}
                onClick={() => {
                  setUrisTouched(true);
                  setValue(
                    'redirectUris',
                    redirectUris.filter((_, i) => i !== index),
                  );
                }}
              >
                <X size={16} aria-hidden="true" />
              </button>
            </div>
            {errors.redirectUris?.[index] ? (
              <div className="invalid-feedback d-block">{errors.redirectUris[index]?.message}</div>
            ) : null}
          </div>
        ))}
        {urisError ? <div className="invalid-feedback d-block mb-2">{urisError}</div> : null}
        <button
          type="button"
          className="btn btn-link btn-sm px-0 d-inline-flex align-items-center gap-1"
          disabled={redirectUris.length >= MAX_REDIRECT_URIS}
          onClick={() => {
            setUrisTouched(true);
            setValue('redirectUris', [...redirectUris, '']);
          }}
        >
          <Plus size={16} aria-hidden="true" /> Add a redirect URI
        </button>
      </fieldset>

      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">Post-logout redirect URIs</legend>
        <p className="form-text mt-0 mb-2">
          Where the app may send people after they sign out through Atrium; same rules as redirect URIs.
          Without one, they see Atrium&apos;s &quot;You are signed out&quot; page.
        </p>
        {postLogoutUris.map((_uri, index) => (
          <div key={index} className="mb-2">
            <div className="input-group">
              <Form.Control
                id={`app-post-logout-uri-${index}`}
                aria-label={`Post-logout redirect URI ${index + 1}`}
                type="url"
                inputMode="url"
                placeholder={logoutHints[index] ?? logoutHints[0] ?? 'https://app.example.com/'}
                {...register(`postLogoutRedirectUris.${index}`, {
                  onChange: () => setLogoutUrisTouched(true),
                })}
                isInvalid={!!errors.postLogoutRedirectUris?.[index]}
              />
              <button
                type="button"
                className="btn btn-outline-secondary"
                aria-label={`Remove post-logout redirect URI ${index + 1}`}
                onClick={() => {
                  setLogoutUrisTouched(true);
                  setValue(
                    'postLogoutRedirectUris',
                    postLogoutUris.filter((_, i) => i !== index),
                  );
                }}
              >
                <X size={16} aria-hidden="true" />
              </button>
            </div>
            {errors.postLogoutRedirectUris?.[index] ? (
              <div className="invalid-feedback d-block">{errors.postLogoutRedirectUris[index]?.message}</div>
            ) : null}
          </div>
        ))}
        {logoutUrisError ? <div className="invalid-feedback d-block mb-2">{logoutUrisError}</div> : null}
        <button
          type="button"
          className="btn btn-link btn-sm px-0 d-inline-flex align-items-center gap-1"
          disabled={postLogoutUris.length >= MAX_REDIRECT_URIS}
          onClick={() => {
            setLogoutUrisTouched(true);
            setValue('postLogoutRedirectUris', [...postLogoutUris, '']);
          }}
        >
          <Plus size={16} aria-hidden="true" /> Add a post-logout redirect URI
        </button>
      </fieldset>

      <Form.Group className="mb-3" controlId="app-backchannel-logout-uri">
        <Form.Label>Back-channel logout URI</Form.Label>
        <Form.Control
          type="url"
          inputMode="url"
          placeholder={`${installing ? APP_HOST_HINT : 'https://app.example.com'}/backchannel-logout`}
          aria-describedby="app-backchannel-logout-uri-help"
          {...register('backchannelLogoutUri', { setValueAs: (value: unknown) => value ?? '' })}
          isInvalid={!!errors.backchannelLogoutUri}
        />
        <Form.Text id="app-backchannel-logout-uri-help">
          Optional. Atrium posts a signed logout token here when someone&apos;s session at the app must end
          (sign-out, a session ended by an admin, suspension, lost access); same rules as redirect URIs.
        </Form.Text>
        {errors.backchannelLogoutUri ? (
          <div className="invalid-feedback d-block">{errors.backchannelLogoutUri.message}</div>
        ) : null}
      </Form.Group>

      <fieldset className="mb-4">
        <legend className="form-label fs-6 mb-2">Who can open it</legend>
        <Controller
          control={control}
          name="openToEveryone"
          render={({ field }) => (
            <>
              <Form.Check
                type="radio"
                id="app-access-everyone"
                name="app-access"
                label="Everyone in the organisation"
                checked={field.value}
                onChange={() => field.onChange(true)}
              />
              <Form.Check
                type="radio"
                id="app-access-groups"
                name="app-access"
                label="Only members of these groups"
                checked={!field.value}
                onChange={() => field.onChange(false)}
              />
            </>
          )}
        />
        {!openToEveryone ? (
          <Controller
            control={control}
            name="groupIds"
            render={({ field }) => (
              <div className="ms-4 mt-2" role="group" aria-label="Groups that can open the app">
                {groups.length === 0 ? (
                  <p className="small text-body-secondary mb-0">Your organisation has no groups yet.</p>
                ) : (
                  groups.map((group) => (
                    <Form.Check
                      key={group.id}
                      id={`app-group-${group.id}`}
                      label={group.name}
                      checked={field.value.includes(group.id)}
                      onChange={(event) =>
                        field.onChange(
                          event.target.checked
                            ? [...field.value, group.id]
                            : field.value.filter((id) => id !== group.id),
                        )
                      }
                    />
                  ))
                )}
                {errors.groupIds ? (
                  <div className="invalid-feedback d-block">{errors.groupIds.message}</div>
                ) : null}
              </div>
            )}
          />
        ) : null}
      </fieldset>

      <button type="submit" className="btn btn-primary" disabled={isSubmitting}>
        {isSubmitting ? 'Saving…' : submitLabel}
      </button>
    </Form>
  );
}
