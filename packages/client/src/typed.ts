import type { paths } from './generated/openapi.js';

/**
 * Types that read the operations of the generated `paths` (openapi-typescript's output): what a path's
 * parameters, request body and success answers are. The SDK's methods are written against these, so a
 * change of the OpenAPI document changes their types; nothing here restates a field by hand.
 */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'head' | 'patch';
export type ApiPath = keyof paths;

/** The operation object of `method` on `path` (never when the path has no such method). */
export type Operation<P extends ApiPath, M extends HttpMethod> = paths[P] extends { [K in M]: infer O }
  ? O
  : never;

/** The paths that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in ApiPath]: [Operation<P, M>] extends [never] ? never : P;
}[ApiPath];

type ParametersOf<O> = O extends { parameters: infer X } ? X : never;
type Present<T> = [Exclude<T, undefined>] extends [never] ? never : Exclude<T, undefined>;

export type PathParams<O> = ParametersOf<O> extends { path: infer X } ? Present<X> : never;
export type QueryParams<O> = ParametersOf<O> extends { query?: infer X } ? Present<X> : never;
export type HeaderParams<O> = ParametersOf<O> extends { header?: infer X } ? Present<X> : never;

/** The JSON body an operation takes. */
export type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 203 | 206;

/** The JSON body of an operation's success answers. */
export type JsonSuccess<O> = {
  [S in keyof ResponsesOf<O>]: S extends SuccessStatus
    ? ResponsesOf<O>[S] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never;
}[keyof ResponsesOf<O>];

/** What a call of an operation needs: its path parameters when it has some, and its optional parts. */
export type CallParts<O> = ([PathParams<O>] extends [never]
  ? { path?: undefined }
  : { path: PathParams<O> }) & {
  query?: [QueryParams<O>] extends [never] ? undefined : QueryParams<O>;
  headers?: [HeaderParams<O>] extends [never] ? undefined : HeaderParams<O>;
};
