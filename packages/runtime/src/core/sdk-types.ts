// The types each product's generated SDK (packages/<product>-client/src/generated/sdk.gen.ts) imports from this package:
// tooling/codegen generates the SDK against `@paykit/runtime` instead of a bundled hey-api client.
// They describe the client createSdkClient returns: the options its methods take
// (SdkRequestOptions) and the `{ data, error, response }` they answer with, keyed by each
// operation's generated response and error maps.
import type { SdkRequestOptions } from './sdk-client.ts';

/** What an operation's generated `<Operation>Data` type describes: its inputs and its path template. */
export interface TDataShape {
  body?: unknown;
  headers?: unknown;
  path?: unknown;
  query?: unknown;
  url: string;
}

/**
 * Values a caller passes through an SDK function's `meta` option. Empty: nothing reads it;
 * a declaration merge gives it fields.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ClientMeta {}

/** The request options one SDK client method takes; `ThrowOnError` picks its result's shape. */
type SdkMethodOptions<ThrowOnError extends boolean = boolean> = Omit<
  SdkRequestOptions,
  'method' | 'responseStyle' | 'throwOnError'
> & {
  /** Only `fields` ({ data, error, response }) is typed: the SDK functions never ask for `data`. */
  responseStyle?: 'fields';
  throwOnError?: ThrowOnError;
};

/** A map of status → body (an operation's `<Operation>Responses` or `<Operation>Errors`) read as the union of its bodies. */
type BodyOf<T> = T extends Record<string, unknown> ? T[keyof T] : T;

/**
 * What an SDK function answers: with `throwOnError: true`, the data (a non-2xx throws); otherwise
 * either the data or the parsed error body, with the response when one came back.
 */
export type RequestResult<
  TData = unknown,
  TError = unknown,
  ThrowOnError extends boolean = boolean,
> = ThrowOnError extends true
  ? Promise<{ data: BodyOf<TData>; response: Response; request?: Request }>
  : Promise<
      ({ data: BodyOf<TData>; error: undefined } | { data: undefined; error: BodyOf<TError> }) & {
        /** Absent when building or sending the request failed. */
        response?: Response;
        /** Set only when the request went through a fetch that is not a transport's. */
        request?: Request;
      }
    >;

type SdkMethod = <TData = unknown, TError = unknown, ThrowOnError extends boolean = false>(
  options: SdkMethodOptions<ThrowOnError>,
) => RequestResult<TData, TError, ThrowOnError>;

/** The client the generated SDK functions call (createSdkClient's result). */
export interface Client {
  request: <TData = unknown, TError = unknown, ThrowOnError extends boolean = false>(
    options: SdkMethodOptions<ThrowOnError> & { method: string },
  ) => RequestResult<TData, TError, ThrowOnError>;
  get: SdkMethod;
  post: SdkMethod;
  put: SdkMethod;
  patch: SdkMethod;
  delete: SdkMethod;
  head: SdkMethod;
  options: SdkMethod;
}

/**
 * The options of one SDK function: the client's request options without the ones the operation
 * fixes, and the operation's own inputs (`body`, `path`, `query`, `headers`) exactly as its
 * `<Operation>Data` type gives them. `TResponse` is part of the generated signature; nothing here
 * reads it.
 */
export type Options<
  TData extends TDataShape = TDataShape,
  ThrowOnError extends boolean = boolean,
  _TResponse = unknown,
> = Omit<SdkMethodOptions<ThrowOnError>, 'body' | 'path' | 'query' | 'url'> &
  ([TData] extends [never] ? unknown : Omit<TData, 'url'>);
