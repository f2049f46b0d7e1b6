import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Field } from '../../../components/ui/form.js';
import { requestPasswordReset } from '../api/password-reset.js';

export function ForgotPasswordForm() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    try {
      await requestPasswordReset(email);
      toast.success('Password Reset Email Sent', { description: 'Please check your email for password reset instructions.' });
      setEmail('');
    } catch (error) {
      toast.error('Error', { description: (error instanceof Error && error.message) || 'Failed to send password reset email' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-label="Request a password reset link">
      <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? 'Sending...' : 'Send Reset Link'}
      </Button>
    </form>
  );
}
