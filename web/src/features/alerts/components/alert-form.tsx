import { useId, useState, type FormEvent } from 'react';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Field, inputClass, Label } from '../../../components/ui/form.js';
import { ALERT_FIELD_MESSAGES, CONDITIONS, EQUIPMENT_TYPES, parseKeywords, parseMinDealScore, parseWholeDollars, US_STATES } from '../alert-options.js';
import type { AlertDealLevel, AlertInput, DeliveryMethod } from '../api/alerts-api.js';
import { useAuth } from '../../../lib/auth.js';
import { zipOrEmpty } from '../../../lib/dashboard-params.js';
import { RADIUS_OPTIONS } from '../../../lib/near.js';

type Values = {
  equipmentType: string;
  location: string;
  priceMin: string;
  priceMax: string;
  condition: string;
  deliveryMethod: DeliveryMethod;
  dealLevel: AlertDealLevel;
  includeUnscored: boolean;
  /** Premium only: a whole number 0–100 replacing the deal level; '' means not set. */
  minDealScore: string;
  /** Premium only: words that must all appear in the listing; '' means none. */
  keywords: string;
  /** Where the buyer is: a 5-digit ZIP code, '' for none. */
  nearZip: string;
  /** Miles from nearZip, '' for any distance (the dashboard's choices). */
  radiusMiles: string;
  /** Only deals whose discount exceeds the estimated haul from nearZip (needs it). */
  worthTheTrip: boolean;
};
export const EMPTY_ALERT_FORM: Values = {
  equipmentType: '',
  location: 'any-location',
  priceMin: '',
  priceMax: '',
  condition: 'any-condition',
  deliveryMethod: 'email',
  dealLevel: 'good',
  includeUnscored: false,
  minDealScore: '',
  keywords: '',
  nearZip: '',
  radiusMiles: '',
  worthTheTrip: false,
};

type FormErrors = Partial<Record<'equipmentType' | 'minDealScore' | 'keywords' | 'nearZip' | 'radiusMiles', string>>;

/** The form's errors, with the API's messages (services/alerts/alert-rules.ts); premium fields only for premium. */
export function alertFormErrors(values: Values, premium = false): FormErrors {
  const errors: FormErrors = {};
  if (!values.equipmentType) errors.equipmentType = 'Please select an equipment type';
  if (premium && parseMinDealScore(values.minDealScore) === undefined) errors.minDealScore = ALERT_FIELD_MESSAGES.minDealScore;
  if (premium && parseKeywords(values.keywords) === undefined) errors.keywords = ALERT_FIELD_MESSAGES.keywordsTooLong;
  // The API answers 400 to a ZIP that is not one and to a radius with nothing to measure from.
  const zip = zipOrEmpty(values.nearZip);
  if (values.nearZip.trim() && !zip) errors.nearZip = ALERT_FIELD_MESSAGES.nearZip;
  else if (values.radiusMiles && !zip) errors.radiusMiles = ALERT_FIELD_MESSAGES.radiusNeedsZip;
  return errors;
}

/**
 * The form's values as the API's payload ('any-location' / 'any-condition' mean no filter). The
 * premium filters are sent only for premium users and only when set (valid values assumed); the
 * ZIP and radius only when set, so an alert without them is sent as before.
 */
export function alertPayload(values: Values, premium = false): AlertInput {
  const payload: AlertInput = {
    equipment_type: values.equipmentType,
    state: values.location === 'any-location' ? null : values.location,
    price_min: parseWholeDollars(values.priceMin),
    price_max: parseWholeDollars(values.priceMax),
    condition: values.condition === 'any-condition' ? null : values.condition,
    delivery_method: values.deliveryMethod,
    deal_level: values.dealLevel,
    include_unscored: values.includeUnscored,
  };
  const zip = zipOrEmpty(values.nearZip);
  if (zip) {
    payload.near_zip = zip;
    if (values.radiusMiles) payload.radius_miles = Number(values.radiusMiles);
    if (values.worthTheTrip) payload.worth_the_trip = true;
  }
  if (premium) {
    const minDealScore = parseMinDealScore(values.minDealScore);
    const keywords = parseKeywords(values.keywords);
    if (minDealScore !== null && minDealScore !== undefined) payload.min_deal_score = minDealScore;
    if (keywords !== null && keywords !== undefined) payload.keywords = keywords;
  }
  return payload;
}

function SelectField({ label, value, onChange, children, error }: { label: string; value: string; onChange: (v: string) => void; children: React.ReactNode; error?: string }) {
  const id = useId();
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <select id={id} className={inputClass} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {children}
      </select>
      {error && (
        <p id={`${id}-error`} className="text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

export function AlertForm({
  smsAllowed,
  premium = false,
  onCreate,
  onCancel,
}: {
  smsAllowed: boolean;
  /** Shows the premium filters (minimum deal score, keywords). */
  premium?: boolean;
  onCreate: (input: AlertInput) => Promise<boolean>;
  onCancel: () => void;
}) {
  // The profile's ZIP is where the buyer is, unless they say otherwise for this alert.
  const profileZip = zipOrEmpty(useAuth().user?.zip ?? null);
  const initial: Values = { ...EMPTY_ALERT_FORM, nearZip: profileZip };
  const [values, setValues] = useState<Values>(initial);
  const [errors, setErrors] = useState<FormErrors>({});
  const [busy, setBusy] = useState(false);
  const set = (key: Exclude<keyof Values, 'includeUnscored' | 'worthTheTrip'>) => (value: string) => setValues((v) => ({ ...v, [key]: value }));
  const unscoredId = useId();
  const tripId = useId();
  // The haul is estimated from the ZIP code: without one the option is off (and not sent).
  const hasZip = zipOrEmpty(values.nearZip) !== '';

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = alertFormErrors(values, premium);
    const first = found.equipmentType ?? found.nearZip ?? found.radiusMiles ?? found.minDealScore ?? found.keywords;
    if (first) {
      setErrors(found);
      toast.error('Error', { description: first });
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      if (await onCreate(alertPayload(values, premium))) setValues(initial);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Create New Alert</CardTitle>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label="Create New Alert">
          <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            <SelectField label="Equipment Type" value={values.equipmentType} onChange={set('equipmentType')} error={errors.equipmentType}>
              <option value="">Select equipment type</option>
              {EQUIPMENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </SelectField>
            <SelectField label="Location" value={values.location} onChange={set('location')}>
              <option value="any-location">Any location</option>
              {US_STATES.map(([code, name]) => (
                <option key={code} value={code}>
                  {name}
                </option>
              ))}
            </SelectField>
            <Field
              label="Near ZIP"
              optional
              inputMode="numeric"
              title="A 5-digit US ZIP code"
              placeholder="e.g. 50309"
              maxLength={5}
              autoComplete="postal-code"
              value={values.nearZip}
              onChange={(e) => set('nearZip')(e.target.value)}
              error={errors.nearZip}
              hint="Messages show the distance and the price delivered there."
            />
            <SelectField label="Within" value={values.radiusMiles} onChange={set('radiusMiles')} error={errors.radiusMiles}>
              <option value="">Any distance</option>
              {RADIUS_OPTIONS.map((miles) => (
                <option key={miles} value={String(miles)}>
                  {miles} miles
                </option>
              ))}
            </SelectField>
            <SelectField label="Condition" value={values.condition} onChange={set('condition')}>
              <option value="any-condition">Any condition</option>
              {CONDITIONS.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </SelectField>
            <Field label="Min Price" inputMode="numeric" placeholder="0" value={values.priceMin} onChange={(e) => set('priceMin')(e.target.value)} maxLength={12} />
            <Field label="Max Price" inputMode="numeric" placeholder="999999" value={values.priceMax} onChange={(e) => set('priceMax')(e.target.value)} maxLength={12} />
            <SelectField label="Notification Method" value={values.deliveryMethod} onChange={(v) => set('deliveryMethod')(v)}>
              <option value="email">Email</option>
              <option value="sms" disabled={!smsAllowed}>
                {smsAllowed ? 'SMS' : 'SMS (Premium)'}
              </option>
            </SelectField>
            <SelectField label="Deals" value={values.dealLevel} onChange={set('dealLevel')}>
              <option value="good">Good deals or better (score 60+)</option>
              <option value="excellent">Excellent deals only (score 80+)</option>
            </SelectField>
            {premium && (
              <>
                <Field
                  label="Minimum Deal Score"
                  optional
                  inputMode="numeric"
                  placeholder="e.g. 70"
                  value={values.minDealScore}
                  onChange={(e) => set('minDealScore')(e.target.value)}
                  maxLength={3}
                  error={errors.minDealScore}
                  hint="Premium: a whole number from 0 to 100; replaces the deal level when set."
                />
                <Field
                  label="Keywords"
                  optional
                  placeholder="e.g. cat 320 thumb"
                  value={values.keywords}
                  onChange={(e) => set('keywords')(e.target.value)}
                  error={errors.keywords}
                  hint="Premium: every word must appear in the listing; up to 10 words of 40 characters, 200 in all."
                />
              </>
            )}
          </div>
          <div className="flex items-start gap-2">
            <input
              id={unscoredId}
              type="checkbox"
              className="mt-1 h-4 w-4"
              checked={values.includeUnscored}
              onChange={(e) => setValues((v) => ({ ...v, includeUnscored: e.target.checked }))}
            />
            <Label htmlFor={unscoredId}>Include listings without a score (they cannot be valued, so they may not be deals)</Label>
          </div>
          <div className="flex items-start gap-2">
            <input
              id={tripId}
              type="checkbox"
              className="mt-1 h-4 w-4"
              disabled={!hasZip}
              checked={hasZip && values.worthTheTrip}
              onChange={(e) => setValues((v) => ({ ...v, worthTheTrip: e.target.checked }))}
              aria-describedby={`${tripId}-hint`}
            />
            <div>
              <Label htmlFor={tripId}>Only deals worth the trip</Label>
              <p id={`${tripId}-hint`} className="text-sm text-slate-700">
                {hasZip
                  ? 'Keeps a lot only when its discount under fair value is more than the estimated haul to your ZIP code.'
                  : 'Enter a ZIP code to estimate the haul from.'}
              </p>
            </div>
          </div>
          <p className="text-sm text-slate-700">At most 5 instant e-mails (3 SMS) per alert a day; further deals come in the next daily digest.</p>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              Create Alert
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                setValues(initial);
                setErrors({});
                onCancel();
              }}
            >
              Cancel
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
