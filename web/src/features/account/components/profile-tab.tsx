import { useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Field } from '../../../components/ui/form.js';
import { ApiError } from '../../../lib/api-client.js';
import { useAuth, type User } from '../../../lib/auth.js';
import { accountApi, type ProfileInput } from '../api/account-api.js';

const FIELDS: Array<{ key: keyof ProfileInput; label: string; type?: string; autoComplete: string; required?: boolean }> = [
  { key: 'first_name', label: 'First Name', autoComplete: 'given-name', required: true },
  { key: 'last_name', label: 'Last Name', autoComplete: 'family-name', required: true },
  { key: 'email', label: 'Email', type: 'email', autoComplete: 'email', required: true },
  { key: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel' },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'address', label: 'Address', autoComplete: 'street-address' },
  // Where the buyer is: the dashboard's distances and the deal page's price delivered start from it.
  { key: 'zip', label: 'ZIP Code', autoComplete: 'postal-code' },
];

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function profileValues(user: User): ProfileInput {
  return {
    first_name: user.first_name ?? '',
    last_name: user.last_name ?? '',
    email: user.email ?? '',
    phone: user.phone ?? '',
    city: user.city ?? '',
    address: user.address ?? '',
    zip: user.zip ?? '',
  };
}

/** Spec §5: first name, last name and e-mail required (e-mail format); the rest optional. */
export function validateProfile(values: ProfileInput): Partial<Record<keyof ProfileInput, string>> {
  const errors: Partial<Record<keyof ProfileInput, string>> = {};
  if (!values.first_name.trim()) errors.first_name = 'First name is required';
  if (!values.last_name.trim()) errors.last_name = 'Last name is required';
  if (!values.email.trim()) errors.email = 'Email is required';
  else if (!EMAIL_PATTERN.test(values.email.trim())) errors.email = 'Enter a valid email address';
  if (values.zip.trim() && !/^\d{5}$/.test(values.zip.trim())) errors.zip = 'Enter a US ZIP code (5 digits)';
  return errors;
}

export function ProfileTab({ user }: { user: User }) {
  const { refreshProfile } = useAuth();
  const [editing, setEditing] = useState(false);
  const [values, setValues] = useState<ProfileInput>(() => profileValues(user));
  const [errors, setErrors] = useState<Partial<Record<keyof ProfileInput, string>>>({});
  const [busy, setBusy] = useState(false);

  function startEditing() {
    setValues(profileValues(user));
    setErrors({});
    setEditing(true);
  }

  function cancel() {
    // Cancel restores the saved values.
    setValues(profileValues(user));
    setErrors({});
    setEditing(false);
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const problems = validateProfile(values);
    setErrors(problems);
    const first = Object.values(problems)[0];
    if (first) {
      toast.error('Error', { description: first });
      return;
    }
    setBusy(true);
    try {
      const trimmed = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim()])) as ProfileInput;
      await accountApi.updateProfile(trimmed);
      await refreshProfile();
      toast.success('Profile Updated', { description: 'Your profile information has been updated successfully.' });
      setEditing(false);
    } catch (error) {
      if (error instanceof ApiError) setErrors(error.fieldErrors as Partial<Record<keyof ProfileInput, string>>);
      toast.error('Update Failed', { description: (error instanceof Error && error.message) || 'Failed to update profile' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile Information</CardTitle>
        <p className="text-sm text-slate-700">Your personal details</p>
      </CardHeader>
      <CardContent>
        {editing ? (
          <form onSubmit={onSubmit} noValidate className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-2">
              {FIELDS.map((f) => (
                <Field
                  key={f.key}
                  label={f.label}
                  name={f.key}
                  type={f.type ?? 'text'}
                  autoComplete={f.autoComplete}
                  required={f.required}
                  optional={!f.required}
                  value={values[f.key]}
                  error={errors[f.key]}
                  maxLength={f.key === 'address' ? 500 : f.key === 'email' ? 254 : 150}
                  className={f.key === 'address' ? 'sm:col-span-2' : undefined}
                  onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
                />
              ))}
            </div>
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={busy}>
                {busy ? 'Updating...' : 'Save Changes'}
              </Button>
              <Button variant="secondary" onClick={cancel} disabled={busy}>
                Cancel
              </Button>
            </div>
          </form>
        ) : (
          <div className="space-y-4">
            <dl className="grid gap-4 sm:grid-cols-2">
              {FIELDS.map((f) => {
                const value = profileValues(user)[f.key].trim();
                return (
                  <div key={f.key} className={f.key === 'address' ? 'sm:col-span-2' : undefined}>
                    <dt className="text-sm font-medium text-slate-700">{f.label}</dt>
                    <dd className={value ? 'mt-1 break-words text-slate-900' : 'mt-1 text-slate-600 italic'}>{value || 'Not provided'}</dd>
                  </div>
                );
              })}
            </dl>
            <Button onClick={startEditing}>Edit Profile</Button>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
