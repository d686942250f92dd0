import type { ReactNode } from 'react';

// Field is one labelled input of a form: the label above, the input (and
// anything beside it) below.
export function Field({ label, htmlFor, children }: { label: string; htmlFor: string; children: ReactNode }) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={htmlFor}>
        {label}
      </label>
      {children}
    </div>
  );
}
