import { useEffect } from 'react';
import { Navigate, useParams } from 'react-router-dom';
import { toast } from 'sonner';
import { AuthLayout } from '../../features/auth/components/auth-layout.js';
import { ResetPasswordForm } from '../../features/auth/components/reset-password-form.js';

export default function ResetPasswordRoute() {
  const { uid, token } = useParams();
  const valid = Boolean(uid && token);

  useEffect(() => {
    if (!valid) toast.error('Invalid Reset Link', { id: 'invalid-reset-link', description: 'This password reset link is invalid or has expired.' });
  }, [valid]);

  if (!valid) return <Navigate to="/forgot-password" replace />;
  return (
    <AuthLayout title="Reset Password" subtitle="Choose a new password for your account.">
      <title>Reset Password — Deal Radar</title>
      <ResetPasswordForm uid={uid!} token={token!} />
    </AuthLayout>
  );
}
