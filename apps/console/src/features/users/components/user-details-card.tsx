import { updateUserSchema, type UpdateUserInput, type UserDetail } from '@atrium/contracts/users';
import { zodResolver } from '@hookform/resolvers/zod';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm, type FieldPath } from 'react-hook-form';
import type { z } from 'zod';
import { SectionCard } from '../../../components/section-card.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { userActions, useUserAction } from '../api/user-actions.ts';
import { ActionError } from './action-error.tsx';
import { formatDateTime } from './format.ts';

/** The employee profile: name and personal address (editable), e-mail, dates. */
export function UserDetailsCard({ user }: { user: UserDetail }) {
  const save = useUserAction(user.id, (body: UpdateUserInput) => userActions.update(user.id, body));
  const { register, handleSubmit, setError, formState } = useForm<
    UpdateUserInput,
    unknown,
    z.output<typeof updateUserSchema>
  >({
    resolver: zodResolver(updateUserSchema),
    values: { firstName: user.firstName, lastName: user.lastName, personalEmail: user.personalEmail ?? '' },
  });
  const { errors, isDirty, isSubmitting } = formState;
  const submit = handleSubmit(async (values) => {
    try {
      // Empty removes the personal address.
      await save.mutateAsync({ ...values, personalEmail: values.personalEmail ?? '' });
    } catch (error) {
      if (error instanceof ApiError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<UpdateUserInput>, { message });
        }
      }
    }
  });
  return (
    <SectionCard title="Details" className="mb-4">
      <ActionError
        title="The details could not be saved"
        error={save.error instanceof ApiError && save.error.fields ? null : save.error}
      />
      <Form noValidate onSubmit={submit}>
        <div className="row g-3 mb-3">
          <Form.Group className="col-sm-6" controlId="user-first-name">
            <Form.Label>First name</Form.Label>
            <Form.Control {...register('firstName')} isInvalid={!!errors.firstName} />
            <Form.Control.Feedback type="invalid">{errors.firstName?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Group className="col-sm-6" controlId="user-last-name">
            <Form.Label>Last name</Form.Label>
            <Form.Control {...register('lastName')} isInvalid={!!errors.lastName} />
            <Form.Control.Feedback type="invalid">{errors.lastName?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Group className="col-12" controlId="user-personal-email">
            <Form.Label>Personal email (for invitations)</Form.Label>
            <Form.Control
              type="email"
              autoCapitalize="none"
              spellCheck={false}
              placeholder="None"
              {...register('personalEmail')}
              isInvalid={!!errors.personalEmail}
            />
            <Form.Control.Feedback type="invalid">{errors.personalEmail?.message}</Form.Control.Feedback>
            <Form.Text>An address of theirs outside Atrium, where an invitation is sent.</Form.Text>
          </Form.Group>
        </div>
        <Button type="submit" variant="outline-primary" size="sm" disabled={!isDirty || isSubmitting}>
          Save details
        </Button>
      </Form>
      <dl className="row small mt-4 mb-0">
        <dt className="col-sm-4">E-mail (sign-in)</dt>
        <dd className="col-sm-8 text-break">{user.email}</dd>
        <dt className="col-sm-4">Added</dt>
        <dd className="col-sm-8">{formatDateTime(user.createdAt)}</dd>
        <dt className="col-sm-4">Last sign-in</dt>
        <dd className="col-sm-8">{formatDateTime(user.lastSignInAt)}</dd>
        <dt className="col-sm-4">Password set</dt>
        <dd className="col-sm-8 mb-0">{formatDateTime(user.passwordChangedAt, 'Not yet')}</dd>
      </dl>
    </SectionCard>
  );
}
