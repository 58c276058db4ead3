import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { AddUserForm } from '../../users/components/add-user-form.tsx';
import { useMarkStep } from '../api/setup-progress.ts';
import { StepFrame } from './step-frame.tsx';

/**
 * Step 4 (skippable): add people with the users area's form; the wizard stays on this step.
 * `done`: the server already counts a user besides the admins (added earlier, or in another tab).
 */
export function StepUsers({ done }: { done: boolean }) {
  const markStep = useMarkStep();
  const [added, setAdded] = useState<string[]>([]);
  return (
    <StepFrame
      title="Add users"
      intro="Add the people of your organisation, with a first password or an invitation e-mail. You can also do this later from the Users page."
      error={markStep.error}
    >
      <div className="mb-4">
        <AddUserForm
          submitLabel="Add user"
          onCreated={(result) => setAdded((list) => [...list, result.user.email])}
        />
      </div>
      {added.length > 0 ? (
        <p role="status" className="text-success">
          Added: {added.join(', ')}
        </p>
      ) : null}
      <div className="d-flex flex-wrap gap-2 border-top pt-3">
        <Button
          onClick={() => markStep.mutate({ step: 'users', outcome: 'done' })}
          disabled={(added.length === 0 && !done) || markStep.isPending}
        >
          Continue
        </Button>
        <Button
          variant="outline-secondary"
          onClick={() => markStep.mutate({ step: 'users', outcome: 'skipped' })}
          disabled={markStep.isPending}
        >
          Skip for now
        </Button>
      </div>
    </StepFrame>
  );
}
