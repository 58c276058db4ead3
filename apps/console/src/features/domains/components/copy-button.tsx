import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

const COPIED_MS = 2000;

/**
 * Copies a value; says "Copied" on the button for two seconds (and to screen readers through
 * the live region), so the admin sees which value went to the clipboard. `label` is the idle text
 * ("Copy all"); `what` completes the accessible name ("Copy <what>").
 */
export function CopyButton({ value, what, label = 'Copy' }: { value: string; what: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), COPIED_MS);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  }

  return (
    <button
      type="button"
      className={`btn btn-sm d-inline-flex align-items-center gap-1 ${state === 'copied' ? 'btn-success' : 'btn-outline-secondary'}`}
      aria-label={`Copy ${what}`}
      onClick={() => void copy()}
    >
      {state === 'copied' ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : label}
      </span>
    </button>
  );
}
