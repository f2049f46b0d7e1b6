import { Link } from 'react-router-dom';
import { AuthLayout } from '../../features/auth/components/auth-layout.js';
import { ForgotPasswordForm } from '../../features/auth/components/forgot-password-form.js';

export default function ForgotPasswordRoute() {
  return (
    <AuthLayout
      title="Forgot Password"
      subtitle="Enter your email and we will send you a link to reset your password."
      footer={
        <Link to="/login" className="font-medium text-brand-600 hover:underline">
          Back to Sign In
        </Link>
      }
    >
      <title>Forgot Password — Deal Radar</title>
      <ForgotPasswordForm />
    </AuthLayout>
  );
}
