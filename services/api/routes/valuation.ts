/**
 * What is it worth (issue 38): `GET /api/valuation/estimate/?category=&make=&model=&year=&hours=&zip=`
 * values a machine that is not listed anywhere through the scorer's own path (estimateMachine →
 * scoreListing) and answers as the deal detail does: fair value, range, comparables and the bid
 * limits. Thin: the rules live in services/valuation/machine-estimate.ts, the limits in
 * services/billing/estimate-quota.ts. Anyone may ask (Free: ESTIMATE_FREE_DAILY a day per account,
 * or per address without one; Pro: unlimited); an unknown parameter is a 400 naming it (the closed
 * query schema, api/plugins/strict-input.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { takeEstimateQuota } from '../../billing/estimate-quota.js';
import { bidLimitsView, toComparables, valuationNote } from '../../listings/listing-rules.js';
import { badRequestSchema, bidLimitsSchema, comparableSaleSchema, text, wholeNumber, zipCodeSchema } from '../../listings/listing-schemas.js';
import { estimateMachine } from '../../scorer/estimate-machine.js';
import { ModelStore } from '../../scorer/model-store.js';
import type { AppContext } from '../../shared/context.js';
import { lookupZip } from '../../shared/geo/gazetteer.js';
import { HttpError, ValidationError } from '../../shared/errors.js';
import { listCategories } from '../../shared/repositories/listings-repository.js';
import { storedBidLimits } from '../../valuation/bid-limits.js';
import { machineTitle, unknownModelNote } from '../../valuation/machine-estimate.js';
import { optionalUser } from '../plugins/auth.js';

const MAX_YEAR = new Date().getUTCFullYear() + 1;

export const estimateQuerySchema = z.object({
  category: wholeNumber(1, 2_147_483_647).describe('Category id (see /api/auctions/categories/). Required.'),
  make: text(60).describe('The make, e.g. Caterpillar.'),
  model: text(60).describe('The model, e.g. 416D. Unknown or left out: valued from the type, make and words, and the answer says so.'),
  year: wholeNumber(1900, MAX_YEAR).describe('The year of manufacture.'),
  hours: wholeNumber(0, 500_000).describe('Hours on the meter.'),
  zip: zipCodeSchema.describe('Where the machine is (a US ZIP code): its state is read by the valuation.'),
});

const estimateResponseSchema = z.object({
  data: z.object({
    category: z.object({ id: z.number().int(), name: z.string() }),
    make: z.string().nullable(),
    model: z.string().nullable(),
    year: z.number().int().nullable(),
    hours: z.number().int().nullable(),
    state: z.string().nullable().describe('From the ZIP code.'),
    title: z.string().describe('The machine as the valuation reads it ("2002 Caterpillar 416D").'),
    known_model: z.boolean().describe('Whether we hold sales of this model; false: valued from its type, make and words.'),
    note: z.string().nullable().describe('Said when the model is unknown (or none was given), else why the value lies outside its comparables (as the deal page says), or null.'),
    score_reason: z.string().nullable().describe('Why there is no valuation, in words; null when valued.'),
    valuation: z
      .object({
        as_of: z.string().nullable(),
        fair_value: z.number(),
        low: z.number().nullable(),
        high: z.number().nullable(),
        confidence: z.number().nullable(),
        comparables: z.array(comparableSaleSchema),
      })
      .nullable(),
    bid_limits: bidLimitsSchema.nullable().describe('The most to bid for each level, as for a fixed-price lot with no buyer\'s premium.'),
    estimates_left_today: z.number().int().nullable().describe('Free: estimates left today; Pro: null (unlimited).'),
  }),
});

const detailSchema = z.object({ detail: z.string() });

export function valuationRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const models = new ModelStore(ctx.database.db);
  return async (app) => {
    app.get(
      '/api/valuation/estimate/',
      {
        preHandler: optionalUser(ctx),
        schema: {
          tags: ['valuation'],
          summary: 'What is it worth: the fair value, range, comparables and bid limits of a machine that is not listed',
          querystring: estimateQuerySchema,
          response: { 200: estimateResponseSchema, 400: badRequestSchema, 403: detailSchema, 429: detailSchema, 503: detailSchema },
        },
      },
      async (request) => {
        const q = request.query;
        if (q.category === undefined) throw ValidationError.field('category', 'category: choose an equipment type.');
        const category = (await listCategories(ctx.database.db)).find((c) => c.id === q.category);
        if (!category) throw ValidationError.field('category', 'category: not a known equipment type (see /api/auctions/categories/).');
        const quota = await takeEstimateQuota(ctx, { userId: request.user?.id ?? null, address: request.ip });
        const facts = {
          categoryId: category.id,
          make: q.make?.trim() || null,
          model: q.model?.trim() || null,
          year: q.year ?? null,
          hours: q.hours ?? null,
          state: q.zip ? (lookupZip(q.zip)?.state ?? null) : null,
        };
        const now = new Date();
        const estimate = await estimateMachine(ctx, models, facts, now);
        if (!estimate) throw new HttpError(503, 'Being valued: the first valuation model is still being trained.');
        const { score } = estimate;
        const title = machineTitle(facts);
        const valued = score.fairValue !== null;
        return {
          data: {
            category,
            make: facts.make,
            model: facts.model,
            year: facts.year,
            hours: facts.hours,
            state: facts.state,
            title,
            known_model: estimate.knownModel,
            note:
              unknownModelNote(facts, estimate.knownModel) ??
              (valued ? valuationNote({ comparables: score.comparables, fairValue: score.fairValue, year: facts.year, hours: facts.hours, title, description: '' }) : null),
            score_reason: valued ? null : score.reasonText,
            valuation: valued
              ? { as_of: score.asOf, fair_value: score.fairValue!, low: score.valueLow, high: score.valueHigh, confidence: score.valuationConfidence, comparables: toComparables(score.comparables) }
              : null,
            bid_limits: valued && score.bidLimits ? bidLimitsView(storedBidLimits(score.bidLimits), score.fairValue!, now.toISOString(), undefined, true) : null,
            estimates_left_today: quota.left,
          },
        };
      },
    );
  };
}
