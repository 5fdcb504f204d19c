// The direct debit client: x-api-key on every request, customers, instruments as pages that are
// async iterables and their creation, charges in their two documented forms. Errors are the runtime's: a validation failure is a 422 whose
// `detail[{loc,msg,type}]` the UnprocessableError exposes as `error.detail`.
import {
  createClientContext,
  createSdkClient,
  type ClientOptions,
  ConfigurationError,
  invoke,
  type RequestOptions,
} from '@paykit/runtime';
import { checkChargeBody } from './charge-input.ts';
import { createdCharge, type OnChargeCreated } from './charge-recording.ts';
import { createCharge, createCustomer, createInstrument, listInstruments } from './generated/sdk.gen.ts';
import type {
  Charge,
  ChargeCreateRequest,
  Customer,
  CustomerCreateRequest,
  DirectDebitInstrument,
  InstrumentCreateRequest,
  InstrumentPage,
} from './generated/types.gen.ts';
import {
  zCreateChargeResponse,
  zCreateCustomerResponse,
  zCreateInstrumentResponse,
  zListInstrumentsResponse,
} from './generated/zod.gen.ts';
import { walkItems, walkPages } from './pagination.ts';

export interface DirectDebitClientOptions extends ClientOptions {
  /** A direct debit API key (management portal → settings), sent as `x-api-key`. Never logged or put in an error. */
  apiKey: string;
  /**
   * Called with every charge the platform created, before `charges.create` returns (the store's
   * `createChargeRecorder(db)` records it in the ledger). If it throws, `charges.create` throws
   * ChargeRecordingError carrying the charge: record it from there, never create it again.
   */
  onChargeCreated?: OnChargeCreated;
}

export interface InstrumentListParams {
  /** Page size; the service's default is 100, its maximum is not shown (the sandbox allows 1000). */
  limit?: number;
}

export interface InstrumentPageParams extends InstrumentListParams {
  /** The `next_cursor` of the previous page; omit (or null) for the first page. */
  cursor?: string | null;
}

export interface DirectDebitClient {
  customers: {
    /** POST /customers → 201 customer. A 422 is an UnprocessableError with `detail[]`. */
    create(body: CustomerCreateRequest, options?: RequestOptions): Promise<Customer>;
  };
  instruments: {
    /**
     * Every instrument of the organisation, page after page (following `next_cursor` until
     * `has_next` is false or `next_cursor` is null). Lazy: nothing is requested until iterated,
     * and breaking out of the loop stops.
     */
    list(params?: InstrumentListParams, options?: RequestOptions): AsyncIterable<DirectDebitInstrument>;
    /** The same walk, one page at a time (`instruments`, `has_next`, `next_cursor`…). */
    pages(params?: InstrumentPageParams, options?: RequestOptions): AsyncIterable<InstrumentPage>;
    /** One page: GET /instruments?limit&cursor. */
    page(params?: InstrumentPageParams, options?: RequestOptions): Promise<InstrumentPage>;
    /**
     * POST /instruments: a CLABE (`{type: 'mx_clabe', customer_id, mx_clabe: {identifier}}`) or a
     * debit card (`{type: 'mx_direct_debit_card', customer_id, mx_direct_debit_card: {card_number, bank}}`).
     */
    create(body: InstrumentCreateRequest, options?: RequestOptions): Promise<DirectDebitInstrument>;
  };
  charges: {
    /**
     * POST /charges in one of the two documented forms: inline (`inline_customer` +
     * `inline_instrument`) or stored (`customer_id` + `instrument_id`); amount a JSON number of
     * pesos, currency "mxn". A body of neither form is refused before sending (RequestValidationError).
     */
    create(body: ChargeCreateRequest, options?: RequestOptions): Promise<Charge>;
  };
}

export function createDirectDebitClient(options: DirectDebitClientOptions): DirectDebitClient {
  const { apiKey } = options;
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new ConfigurationError(
      'createDirectDebitClient: apiKey is missing. Pass the direct debit API key of this environment (management portal → settings).',
    );
  }
  const { baseUrl, transport, ctx, headers } = createClientContext('direct-debit', options, {
    secrets: () => [apiKey],
    moduleUrl: import.meta.url,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers, auth: () => apiKey });

  const page = (params: InstrumentPageParams = {}, requestOptions?: RequestOptions): Promise<InstrumentPage> => {
    const query: { limit?: number; cursor?: string } = {};
    if (params.limit !== undefined) query.limit = params.limit;
    if (params.cursor !== undefined && params.cursor !== null && params.cursor !== '') query.cursor = params.cursor;
    return invoke<InstrumentPage>(
      ctx,
      'listInstruments',
      zListInstrumentsResponse,
      (extra) => listInstruments({ client: sdk, query, ...extra }),
      requestOptions,
    );
  };
  const pages = (params: InstrumentPageParams = {}, requestOptions?: RequestOptions): AsyncIterable<InstrumentPage> =>
    walkPages(
      (cursor) => page({ limit: params.limit, cursor }, requestOptions),
      'listInstruments',
      params.cursor ?? undefined,
    );

  return {
    customers: {
      create: (body, requestOptions) =>
        invoke<Customer>(
          ctx,
          'createCustomer',
          zCreateCustomerResponse,
          (extra) => createCustomer({ client: sdk, body, ...extra }),
          requestOptions,
        ),
    },
    instruments: {
      list: (params = {}, requestOptions) =>
        walkItems(pages({ limit: params.limit }, requestOptions), (p) => p.instruments),
      pages,
      page,
      create: (body, requestOptions) =>
        invoke<DirectDebitInstrument>(
          ctx,
          'createInstrument',
          zCreateInstrumentResponse,
          (extra) => createInstrument({ client: sdk, body, ...extra }),
          requestOptions,
        ),
    },
    charges: {
      // async: a body refused before sending is a rejected promise, like every other failure.
      create: async (body, requestOptions) => {
        const checked = checkChargeBody(body);
        return createdCharge(options.onChargeCreated, () =>
          invoke<Charge>(
            ctx,
            'createCharge',
            zCreateChargeResponse,
            (extra) => createCharge({ client: sdk, body: checked, ...extra }),
            requestOptions,
          ),
        );
      },
    },
  };
}
