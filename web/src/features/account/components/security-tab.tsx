import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { PasswordField } from '../../../components/ui/form.js';
import { MIN_PASSWORD_LENGTH } from '../../../config/constants.js';
import { ApiError } from '../../../lib/api-client.js';
import { PasswordStrengthMeter } from '../../../components/password-strength-meter.js';
import { accountApi } from '../api/account-api.js';

type Values = { oldPassword: string; newPassword: string; confirmPassword: string };
const EMPTY: Values = { oldPassword: '', newPassword: '', confirmPassword: '' };

/** Spec §5: the new passwords must match, then be at least 8 characters. */
export function validatePasswordChange(values: Values): Partial<Record<keyof Values, string>> {
  if (!values.oldPassword) return { oldPassword: 'Current password is required' };
  if (values.newPassword !== values.confirmPassword) return { confirmPassword: 'New passwords do not match' };
  if (values.newPassword.length < MIN_PASSWORD_LENGTH) return { newPassword: 'New password must be at least 8 characters long' };
  return {};
}

const SERVER_FIELDS: Record<string, keyof Values> = { old_password: 'oldPassword', new_password1: 'newPassword', new_password2: 'confirmPassword' };

export function SecurityTab() {
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<keyof Values, string>>>({});
  const [busy, setBusy] = useState(false);

  const set = (key: keyof Values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problems = validatePasswordChange(values);
    setErrors(problems);
    const first = Object.values(problems)[0];
    if (first) {
      toast.error('Error', { description: first });
      return;
    }
    setBusy(true);
    try {
      await accountApi.changePassword(values);
      toast.success('Password Changed', { description: 'Your password has been changed successfully.' });
      setValues(EMPTY);
      setErrors({});
    } catch (error) {
      if (error instanceof ApiError) {
        const mapped: Partial<Record<keyof Values, string>> = {};
        for (const [field, message] of Object.entries(error.fieldErrors)) mapped[SERVER_FIELDS[field] ?? 'newPassword'] = message;
        setErrors(mapped);
      }
      toast.error('Password Change Failed', { description: (error instanceof Error && error.message) || 'Failed to change password' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Change Password</CardTitle>
        <p className="text-sm text-slate-700">Update your password to keep your account secure</p>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="max-w-md space-y-4">
          <PasswordField label="Current Password" name="old_password" autoComplete="current-password" value={values.oldPassword} error={errors.oldPassword} onChange={set('oldPassword')} required />
          <PasswordField
            label="New Password"
            name="new_password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD_LENGTH}
            value={values.newPassword}
            error={errors.newPassword}
            onChange={set('newPassword')}
            required
            hint={
              <div className="space-y-1">
                <PasswordStrengthMeter password={values.newPassword} />
                <p>Password must be at least 8 characters long</p>
              </div>
            }
          />
          <PasswordField label="Confirm New Password" name="confirm_password" autoComplete="new-password" minLength={MIN_PASSWORD_LENGTH} value={values.confirmPassword} error={errors.confirmPassword} onChange={set('confirmPassword')} required />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              {busy ? 'Changing Password...' : 'Change Password'}
            </Button>
            <Button
              variant="secondary"
              disabled={busy}
              onClick={() => {
                setValues(EMPTY);
                setErrors({});
              }}
            >
              Clear Form
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
