import { CheckCircle2 } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { PasswordField } from '../../../components/ui/form.js';
import { MIN_PASSWORD_LENGTH, RESET_REDIRECT_MS } from '../../../config/constants.js';
import { confirmPasswordReset } from '../api/password-reset.js';
import { PasswordStrengthMeter } from '../../../components/password-strength-meter.js';

export function ResetPasswordForm({ uid, token }: { uid: string; token: string }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => navigate('/login', { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problem =
      password !== confirmPassword
        ? 'Passwords do not match'
        : password.length < MIN_PASSWORD_LENGTH
          ? 'Password must be at least 8 characters long'
          : null;
    setError(problem);
    if (problem) {
      toast.error('Error', { description: problem });
      return;
    }
    setBusy(true);
    try {
      await confirmPasswordReset({ uid, token, password, confirmPassword });
      toast.success('Password Reset Successful', { description: 'Your password has been reset successfully.' });
      setDone(true);
    } catch (err) {
      toast.error('Password Reset Failed', { description: (err instanceof Error && err.message) || 'An error occurred while resetting your password' });
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <div className="space-y-4 text-center" role="status">
        <CheckCircle2 className="mx-auto h-12 w-12 text-green-600" aria-hidden />
        <h2 className="text-lg font-semibold">Password Reset Successful</h2>
        <p className="text-sm text-slate-700">Your password has been reset successfully. Taking you to the sign-in page...</p>
        <Button className="w-full" onClick={() => navigate('/login', { replace: true })}>
          Go to Login
        </Button>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-label="Set a new password">
      <PasswordField
        label="New Password"
        name="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        hint={<PasswordStrengthMeter password={password} />}
      />
      <PasswordField
        label="Confirm Password"
        name="confirmPassword"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={confirmPassword}
        onChange={(e) => setConfirmPassword(e.target.value)}
        error={error ?? undefined}
      />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? 'Resetting...' : 'Reset Password'}
      </Button>
    </form>
  );
}
