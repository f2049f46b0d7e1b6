/**
 * The Listings API (spec §7): `GET /api/auctions/list/`, `/api/auctions/detail/{id}/` and
 * `/api/auctions/categories/`. No authentication. Thin handlers: rules in services/listings,
 * SQL in the listings repository.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';
import { findListingDetail, listCategories, listListingImageUrls, listPriceObservations } from '../../shared/repositories/listings-repository.js';
import { isNumericId } from '../../shared/slug.js';
import { fastResponseSerializer } from '../plugins/fast-serializer.js';
import { ListingIndexSync } from '../../listings/listing-index-sync.js';
import { registerListingIndex } from '../../listings/listing-index-registry.js';
import { ListingsQuery } from '../../listings/listings-query.js';
import { nearPoint, pagination, toCard, toDetail, toListRequest } from '../../listings/listing-rules.js';
import { ValidationError } from '../../shared/errors.js';
import {
  badRequestSchema,
  categoriesResponseSchema,
  detailParamsSchema,
  detailQuerySchema,
  detailResponseSchema,
  listQuerySchema,
  listResponseSchema,
  notFoundSchema,
} from '../../listings/listing-schemas.js';


export function auctionsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const db = ctx.database.db;
    // Which listings and in what order: this process's in-memory index, at most
    // LISTINGS_INDEX_MAX_STALENESS_MS behind the change log, never waited for once loaded; a
    // filter's count is reused a while (CountCache).
    const index = new ListingIndexSync({
      client: ctx.database.sql,
      db,
      logger: app.log,
      maxStalenessMs: ctx.config.LISTINGS_INDEX_MAX_STALENESS_MS,
      snapshotPath: ctx.config.LISTINGS_INDEX_SNAPSHOT ?? undefined,
    });
    registerListingIndex(ctx, index);
    index.start();
    app.addHook('onClose', async () => index.close());
    const listings = new ListingsQuery({
      db,
      index,
      cacheTtlMs: ctx.config.LISTINGS_COUNT_CACHE_SECONDS * 1000,
      cardCacheSize: ctx.config.LISTINGS_CARD_CACHE_SIZE,
    });
    // The two hot routes: compiled serializers, responses still checked by zod outside production.
    const serializerCompiler = fastResponseSerializer({ verify: ctx.config.NODE_ENV !== 'production' });

    app.get(
      '/api/auctions/list/',
      {
        schema: {
          tags: ['auctions'],
          summary: 'Open listings: filter, search, sort and page',
          querystring: listQuerySchema,
          response: { 200: listResponseSchema, 400: badRequestSchema },
        },
        serializerCompiler,
      },
      async (request) => {
        const q = request.query;
        if (q.near === undefined) {
          // What needs a point to measure from, asked without one: said, not silently ignored.
          if (q.radius_miles !== undefined) throw new ValidationError({ radius_miles: ['radius_miles: needs near (a ZIP code) to measure from.'] });
          if (q.max_delivered !== undefined) throw new ValidationError({ max_delivered: ['max_delivered: needs near (a ZIP code) to deliver to.'] });
          if (q.worth_the_trip === true) throw new ValidationError({ worth_the_trip: ['worth_the_trip: needs near (a ZIP code) to deliver to.'] });
          if (q.sort_by === 'delivered') throw new ValidationError({ sort_by: ['sort_by: delivered needs near (a ZIP code) to deliver to.'] });
          if (q.sort_by === 'distance') throw new ValidationError({ sort_by: ['sort_by: distance needs near (a ZIP code) to measure from.'] });
        }
        const listRequest = toListRequest(request.query);
        const { rows, total } = await listings.list(listRequest);
        const near = listRequest.filter.near;
        return { data: { items: rows.map((row) => toCard(row, near)), pagination: pagination(listRequest.page, listRequest.pageSize, total) } };
      },
    );

    app.get(
      '/api/auctions/detail/:id/',
      {
        schema: {
          tags: ['auctions'],
          summary: 'One listing by numeric id or slug, with its valuation and price history',
          params: detailParamsSchema,
          querystring: detailQuerySchema,
          response: { 200: detailResponseSchema, 400: badRequestSchema, 404: notFoundSchema },
        },
        serializerCompiler,
      },
      async (request) => {
        const { id } = request.params;
        const numeric = isNumericId(id) ? Number(id) : undefined;
        // Ids are PostgreSQL integers: a larger number cannot name a listing.
        if (numeric !== undefined && numeric > 2_147_483_647) throw notFound();
        const row = await findListingDetail(db, numeric !== undefined ? { id: numeric } : { slug: id });
        if (!row) throw notFound();
        const [images, history] = await Promise.all([listListingImageUrls(db, row.id), listPriceObservations(db, row.id)]);
        return { data: toDetail(row, images, history, nearPoint(request.query.near)) };
      },
    );

    app.get(
      '/api/auctions/categories/',
      {
        schema: {
          tags: ['auctions'],
          summary: 'The equipment types, then Other',
          response: { 200: categoriesResponseSchema },
        },
      },
      async () => ({ data: { categories: await listCategories(db) } }),
    );
  };
}
