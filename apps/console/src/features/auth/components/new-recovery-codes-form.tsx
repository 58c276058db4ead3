import { useRegenerateRecoveryCodes } from '../api/authenticator.ts';
import { PasswordConfirmForm } from './password-confirm-form.tsx';

/** Asks for the current password, then makes ten new recovery codes and hands them to `onMade`. */
export function NewRecoveryCodesForm({
  id,
  onMade,
  onCancel,
}: {
  id: string;
  onMade: (recoveryCodes: string[]) => void;
  onCancel: () => void;
}) {
  const regenerate = useRegenerateRecoveryCodes();
  return (
    <PasswordConfirmForm
      id={id}
      intro="Ten new codes replace the ones you have; the old ones stop working."
      submitLabel="Make new codes"
      pendingLabel="Making codes…"
      onSubmit={async (body) => {
        const { recoveryCodes } = await regenerate.mutateAsync(body);
        onMade(recoveryCodes);
      }}
      onCancel={onCancel}
    />
  );
}
