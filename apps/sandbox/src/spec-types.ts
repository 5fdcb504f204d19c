// Reading openapi-typescript's maps (`@paykit/<product>-client/paths`): every body the sandbox
// answers or delivers is typed by its product's spec, so a spec change that touches a field the
// sandbox writes fails `tsc` here instead of drifting silently.

/** The JSON body an `operations` entry documents for success (its 200, 201 or 2XX response). */
export type SuccessBody<Operation> = Operation extends { responses: infer Responses }
  ? JsonContent<Responses[Extract<keyof Responses, 200 | 201 | '2XX'>]>
  : never;

type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
