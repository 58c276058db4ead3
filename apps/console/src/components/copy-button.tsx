import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

/** Copies a value to the clipboard; icon-only, so it carries an accessible name. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="btn btn-outline-secondary btn-sm d-inline-flex align-items-center"
      aria-label={copied ? `${label}: copied` : label}
      title={label}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => setCopied(true));
      }}
    >
      {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
    </button>
  );
}

/** A read-only value with a copy button, labelled like a form field. */
export function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  return (
    <div className="mb-3">
      <label htmlFor={id} className="form-label small fw-semibold mb-1">
        {label}
      </label>
      <div className="input-group input-group-sm">
        <input id={id} className="form-control font-monospace" value={value} readOnly />
        <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}
