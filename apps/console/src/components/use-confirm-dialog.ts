import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';

/**
 * The item a ConfirmDialog asks about, with the dialog's props that follow from `mutation`:
 * `ask(item)` opens it; confirming runs the mutation on `variablesOf(item)` and, once it is
 * done, closes the dialog and calls `onDone`; Cancel closes it and forgets the last refusal.
 */
export function useConfirmDialog<TItem, TData, TVariables, TContext>(
  mutation: UseMutationResult<TData, Error, TVariables, TContext>,
  variablesOf: (item: TItem) => TVariables,
  onDone?: () => void,
) {
  const [target, setTarget] = useState<TItem | null>(null);
  return {
    target,
    ask: setTarget,
    dialog: {
      show: target !== null,
      pending: mutation.isPending,
      error: mutation.error,
      onConfirm: () => {
        if (target === null) return;
        mutation.mutate(variablesOf(target), {
          onSuccess: () => {
            setTarget(null);
            onDone?.();
          },
        });
      },
      onCancel: () => {
        setTarget(null);
        mutation.reset();
      },
    },
  };
}
