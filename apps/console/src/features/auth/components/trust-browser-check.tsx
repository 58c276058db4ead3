import Form from 'react-bootstrap/Form';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** "Trust this browser for 30 days" on the second-factor step (issue 17 item 6). */
export function TrustBrowserCheck({ registration }: { registration: UseFormRegisterReturn }) {
  return (
    <Form.Group className="mb-3" controlId="login-trust-browser">
      <Form.Check
        {...registration}
        type="checkbox"
        label="Trust this browser for 30 days"
        aria-describedby="login-trust-browser-help"
      />
      <Form.Text id="login-trust-browser-help" className="small">
        Signing in here will then only ask for your password. Not on a shared computer.
      </Form.Text>
    </Form.Group>
  );
}
