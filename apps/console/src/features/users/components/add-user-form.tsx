import {
  addUserSchema,
  noInvitationAddress,
  type AddUserInput,
  type CreatedUser,
} from '@atrium/contracts/users';
import { zodResolver } from '@hookform/resolvers/zod';
import { Eye, EyeOff } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Spinner from 'react-bootstrap/Spinner';
import { useForm, type FieldPath } from 'react-hook-form';
import type { z } from 'zod';
import { ApiError } from '../../../lib/api-client.ts';
import { useGroups } from '../../groups/api/groups.ts';
import { useAddUser } from '../api/add-user.ts';
import { useEmailDomains } from '../api/email-domains.ts';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';

/** Refusals an admin resolves on the Subscriptions page: the alert links there. */
const SUBSCRIPTION_LIMITS = new Set(['seat_limit', 'subscription_cancelled']);

type AddUserOutput = z.output<typeof addUserSchema>;

export interface AddUserFormProps {
  /** Called with the new user; the page decides where to go (the setup wizard stays put). */
  onCreated: (result: CreatedUser) => void;
  submitLabel?: string;
  /** Extra buttons beside submit, e.g. the wizard's "Skip". */
  secondaryAction?: React.ReactNode;
}

/**
 * "Add a user": name, an address on one of the organisation's domains, a personal address for the
 * invitation, groups, and a first password or an invitation e-mail. Used by /adduser and the
 * setup wizard. On a domain whose mail Atrium hosts, the new address cannot receive the
 * invitation (its mailbox opens once the person has a password): without a personal address the
 * form chooses "Set a first password" and says why.
 */
export function AddUserForm({ onCreated, submitLabel = 'Add user', secondaryAction }: AddUserFormProps) {
  const domains = useEmailDomains();
  const groups = useGroups();
  const addUser = useAddUser();
  const [failure, setFailure] = useState<{ message: string; code?: string } | null>(null);
  const [showPassword, setShowPassword] = useState(false);
  const form = useForm<AddUserInput, unknown, AddUserOutput>({
    resolver: zodResolver(addUserSchema),
    defaultValues: {
      firstName: '',
      lastName: '',
      localPart: '',
      domain: '',
      groupIds: [],
      credential: 'invitation',
      password: '',
      personalEmail: '',
    },
  });
  const { register, handleSubmit, setError, watch, reset, formState } = form;
  const { errors, isSubmitting } = formState;
  const credential = watch('credential');
  const domainOptions = domains.data?.domains ?? [];
  const anyDomain = domains.data?.anyDomain ?? false;
  const noDomain = domains.isSuccess && !anyDomain && domainOptions.length === 0;
  // One domain: it is the answer, so it is chosen already (and again after "add another").
  const onlyDomain = domainOptions.length === 1 ? domainOptions[0] : undefined;
  const chosenDomain = watch('domain');
  useEffect(() => {
    if (onlyDomain && !chosenDomain) form.setValue('domain', onlyDomain);
  }, [onlyDomain, chosenDomain, form]);

  const personalEmail = (watch('personalEmail') ?? '').trim();
  const localPart = watch('localPart').trim();
  const hostedHere = !!chosenDomain && (domains.data?.mailHosted ?? []).includes(chosenDomain.toLowerCase());
  const unreachable = hostedHere && !personalEmail;
  const newAddress = `${localPart || '…'}@${chosenDomain}`;
  // When the new address becomes unreachable the form chooses "Set a password" (the admin may still
  // choose the invitation, which the server then refuses saying why); typing a personal address
  // switches back what the form switched.
  const switchedForYou = useRef(false);
  const wasUnreachable = useRef(false);
  useEffect(() => {
    if (unreachable && !wasUnreachable.current && form.getValues('credential') === 'invitation') {
      switchedForYou.current = true;
      form.setValue('credential', 'password');
    } else if (!unreachable && switchedForYou.current && form.getValues('credential') === 'password') {
      switchedForYou.current = false;
      form.setValue('credential', 'invitation');
    }
    wasUnreachable.current = unreachable;
  }, [unreachable, form]);

  const submit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      const personal = values.personalEmail ?? undefined;
      const body = {
        ...values,
        personalEmail: personal,
        ...(values.credential === 'password' ? {} : { password: undefined }),
      };
      const created = await addUser.mutateAsync(body);
      switchedForYou.current = false;
      reset();
      onCreated(created);
    } catch (error) {
      if (error instanceof ApiError && error.fields && Object.keys(error.fields).length > 0) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<AddUserInput>, { message }, { shouldFocus: true });
        }
      } else {
        setFailure({
          message: error instanceof Error ? error.message : String(error),
          ...(error instanceof ApiError ? { code: error.code } : {}),
        });
      }
    }
  });

  return (
    <Form noValidate onSubmit={submit} aria-label="Add a user">
      {failure ? (
        <Alert variant="danger" onClose={() => setFailure(null)} dismissible>
          <Alert.Heading as="h2" className="h6">
            The user could not be added
          </Alert.Heading>
          <p className="mb-0">{failure.message}</p>
          {failure.code && SUBSCRIPTION_LIMITS.has(failure.code) ? (
            <Link to={paths.subscriptions()} className="alert-link d-inline-block mt-2">
              Go to Subscriptions
            </Link>
          ) : null}
        </Alert>
      ) : null}
      {noDomain ? (
        <Alert variant="warning">
          <Alert.Heading as="h2" className="h6">
            No verified domain yet
          </Alert.Heading>
          <p className="mb-0">
            New users need an address on one of your organisation’s verified domains. Add and verify a domain
            first.
          </p>
        </Alert>
      ) : null}
      <div className="row g-3 mb-3">
        <Form.Group className="col-sm-6" controlId="add-user-first-name">
          <Form.Label>First name</Form.Label>
          <Form.Control autoComplete="off" {...register('firstName')} isInvalid={!!errors.firstName} />
          <Form.Control.Feedback type="invalid">{errors.firstName?.message}</Form.Control.Feedback>
        </Form.Group>
        <Form.Group className="col-sm-6" controlId="add-user-last-name">
          <Form.Label>Last name</Form.Label>
          <Form.Control autoComplete="off" {...register('lastName')} isInvalid={!!errors.lastName} />
          <Form.Control.Feedback type="invalid">{errors.lastName?.message}</Form.Control.Feedback>
        </Form.Group>
      </div>

      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">E-mail address</legend>
        <div className="row g-2 align-items-start">
          <Form.Group className="col-sm-6" controlId="add-user-local-part">
            <Form.Label className="visually-hidden">Part before the @</Form.Label>
            <InputGroup hasValidation>
              <Form.Control
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                placeholder="first.last"
                {...register('localPart')}
                isInvalid={!!errors.localPart}
              />
              <InputGroup.Text>@</InputGroup.Text>
              <Form.Control.Feedback type="invalid">{errors.localPart?.message}</Form.Control.Feedback>
            </InputGroup>
          </Form.Group>
          <Form.Group className="col-sm-6" controlId="add-user-domain">
            <Form.Label className="visually-hidden">Domain</Form.Label>
            {anyDomain ? (
              <>
                <Form.Control
                  placeholder="example.com"
                  autoCapitalize="none"
                  spellCheck={false}
                  list="add-user-domain-options"
                  {...register('domain')}
                  isInvalid={!!errors.domain}
                />
                <datalist id="add-user-domain-options">
                  {domainOptions.map((name) => (
                    <option key={name} value={name} />
                  ))}
                </datalist>
              </>
            ) : (
              <Form.Select {...register('domain')} isInvalid={!!errors.domain}>
                <option value="">{domains.isPending ? 'Loading domains…' : 'Choose a domain'}</option>
                {domainOptions.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </Form.Select>
            )}
            <Form.Control.Feedback type="invalid">{errors.domain?.message}</Form.Control.Feedback>
          </Form.Group>
        </div>
        {anyDomain ? (
          <Form.Text>
            Evaluation install: any domain can be used, verified or not, unless another organisation has
            verified it.
          </Form.Text>
        ) : null}
      </fieldset>

      <Form.Group className="mb-3" controlId="add-user-personal-email">
        <Form.Label>Personal email (for the invitation)</Form.Label>
        <Form.Control
          type="email"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="name@example.org"
          aria-describedby="add-user-personal-email-help"
          {...register('personalEmail')}
          isInvalid={!!errors.personalEmail}
        />
        <Form.Control.Feedback type="invalid">{errors.personalEmail?.message}</Form.Control.Feedback>
        <Form.Text id="add-user-personal-email-help">
          Optional. An address of theirs outside Atrium: the invitation goes there, since the new mailbox
          opens only once they have set a password.
        </Form.Text>
      </Form.Group>

      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">Groups</legend>
        {groups.isPending ? (
          <Spinner animation="border" size="sm" role="status" aria-label="Loading groups" />
        ) : null}
        <div className="d-flex flex-wrap gap-3">
          {groups.data?.groups.map((group) => (
            <Form.Check
              key={group.id}
              id={`add-user-group-${group.id}`}
              type="checkbox"
              value={group.id}
              label={group.isSystem ? `${group.name} (administrators)` : group.name}
              {...register('groupIds')}
            />
          ))}
        </div>
        {errors.groupIds ? <div className="invalid-feedback d-block">{errors.groupIds.message}</div> : null}
      </fieldset>

      <fieldset className="mb-3">
        <legend className="form-label fs-6 mb-1">First sign-in</legend>
        <Form.Check
          id="add-user-credential-invitation"
          type="radio"
          value="invitation"
          label="E-mail an invitation: the user chooses a password (the link works once, for 72 hours)"
          {...register('credential')}
        />
        <Form.Check
          id="add-user-credential-password"
          type="radio"
          value="password"
          label="Set a first password now and give it to the user"
          {...register('credential')}
        />
        {unreachable ? (
          <Alert variant="info" className="small mt-2 mb-0" data-testid="no-invitation-address">
            {noInvitationAddress(newAddress)}. Atrium hosts the mail of {chosenDomain}, so an invitation sent
            to the new address would wait in a mailbox nobody can open yet.
          </Alert>
        ) : null}
      </fieldset>

      {credential === 'password' ? (
        <Form.Group className="mb-3" controlId="add-user-password">
          <Form.Label>Password</Form.Label>
          <InputGroup hasValidation>
            <Form.Control
              type={showPassword ? 'text' : 'password'}
              autoComplete="new-password"
              {...register('password')}
              isInvalid={!!errors.password}
            />
            <Button
              variant="outline-secondary"
              aria-label={showPassword ? 'Hide password' : 'Show password'}
              onClick={() => setShowPassword((v) => !v)}
            >
              {showPassword ? <EyeOff size={16} aria-hidden="true" /> : <Eye size={16} aria-hidden="true" />}
            </Button>
            <Form.Control.Feedback type="invalid">{errors.password?.message}</Form.Control.Feedback>
          </InputGroup>
          <Form.Text>At least 8 characters; very common passwords are refused.</Form.Text>
        </Form.Group>
      ) : null}

      <div className="d-flex flex-wrap gap-2">
        <Button type="submit" disabled={isSubmitting || noDomain}>
          {isSubmitting ? <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" /> : null}
          {submitLabel}
        </Button>
        {secondaryAction}
      </div>
    </Form>
  );
}
