import { codeField } from '@atrium/contracts/credentials';
import { zodResolver } from '@hookform/resolvers/zod';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useForm } from 'react-hook-form';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { CodeField } from './code-field.tsx';

afterEach(cleanup);

const schema = z.object({ code: codeField });

function CodeForm({ onCode }: { onCode: (code: string) => void }) {
  const { register, handleSubmit, formState } = useForm<{ code: string }>({
    resolver: zodResolver(schema),
    defaultValues: { code: '' },
  });
  return (
    <form noValidate onSubmit={(e) => void handleSubmit((v) => onCode(v.code))(e)}>
      <CodeField
        controlId="code"
        label="Sign-in code"
        registration={register('code')}
        error={formState.errors.code?.message}
      />
      <button type="submit">Sign in</button>
    </form>
  );
}

const paste = (input: HTMLElement, text: string) =>
  fireEvent.paste(input, { clipboardData: { getData: () => text } });

describe('CodeField', () => {
  it('offers the numeric keyboard and one-time-code autofill, six characters at most', () => {
    render(<CodeForm onCode={vi.fn()} />);
    const input = screen.getByLabelText('Sign-in code');
    expect(input.getAttribute('inputmode')).toBe('numeric');
    expect(input.getAttribute('autocomplete')).toBe('one-time-code');
    expect(input.getAttribute('maxlength')).toBe('6');
  });

  it('takes a pasted code whole, without the spaces or dash the e-mail client copied', async () => {
    const onCode = vi.fn();
    render(<CodeForm onCode={onCode} />);
    const input = screen.getByLabelText<HTMLInputElement>('Sign-in code');
    paste(input, ' 123 456\n');
    expect(input.value).toBe('123456');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(onCode).toHaveBeenCalledWith('123456'));
  });

  it('refuses anything but six digits with the contracts’ message', async () => {
    render(<CodeForm onCode={vi.fn()} />);
    fireEvent.change(screen.getByLabelText('Sign-in code'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Enter the 6-digit code from the e-mail')).toBeTruthy();
  });
});
