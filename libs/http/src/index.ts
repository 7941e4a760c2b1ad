export { createLogger, redactDeep, isSecretName, type Logger, type LoggerOptions } from './logger';
export { createApp, loggableUrl, type HttpAppOptions } from './app';
export { installErrorHandling, toHttpError } from './errors';
export { healthRoutes, type HealthOptions, type ReadinessCheck } from './health';
export { listen, type ListenOptions, type RunningServer } from './server';
export { holdWrites, writeAtOnce } from './write-batch';
export { REQUEST_ID_HEADER, isSaneRequestId, requestIdOf } from './request-id';
export {
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  currentCallContext,
  withCallContext,
  withSpan,
  openCallContext,
  startHop,
  traceForwarded,
  type CallContext,
  type Hop,
} from './call-context';
export { parseTraceparent, parseTracestate, formatTraceparent, newTraceparent, traceIdOf, type TraceParent } from './trace-context';
export { createTracing, tracingConfigShape, NO_TRACING, type Tracing, type TraceSpan, type TracingOptions, type TracingSettings } from './tracing';
export { ServiceClient, INTERNAL_TOKEN_HEADER, NODE_ADDRESS_HEADER, type HttpMethod, type ServiceClientOptions, type ServiceRequest, type ServiceResponse } from './service-client';
export { errorFromResponse, type ErrorAnswer } from './service-errors';
export { InsufficientBalanceError, insufficientBalanceHandler } from './insufficient-balance';
export { ACCEPTED_REQUEST_TYPES, DEFAULT_BODY_LIMIT } from './body';
export { PRODUCIBLE_TYPES } from './negotiate';
export { encodeMultipart, fieldValue } from './multipart';
export { parseJsonText, jsonErrorOffset } from './json-text';
export { scrubSecrets } from './scrub';
export { fromTsoaValidateError, isTsoaValidateError, tsoaNameToPointer } from './tsoa';
export {
  HttpError,
  ValidationError,
  MalformedBodyError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  NotAcceptableError,
  ConflictError,
  PayloadTooLargeError,
  QuotaExceededError,
  UnsupportedMediaTypeError,
  TooManyRequestsError,
  ServiceUnavailableError,
  InternalError,
  errorBody,
} from './http-error';
// Service scaffolding (config parsing, tsoa ioc registry, process lifecycle, app assembly).
export * from './config';
export * from './ioc';
export * from './lifecycle';
export * from './service-app';
export { Metrics, listenMetrics, routeOf, UNMATCHED_ROUTE, type Sample } from './metrics';
export { contractValidation, type ContractValidationOptions } from './contract-validation';
export {
  forward,
  upstreamAgent,
  upstreamPool,
  INTERNAL_HEADER_PREFIX,
  FORWARDING_CLAIMS,
  tlsServername,
  type ForwardTarget,
  type Forwarded,
  type UpstreamOptions,
} from './forward';
export { relayConnections, rewriteHead, type RelayRoute, type RelayOptions, type RelaySet } from './relay/relay';
export { valueOf, listOf, type Head } from './relay/framing';
export { createWsProxy, refuseUpgrade, guardUpgradeSocket, type WsProxy, type WsTarget } from './ws-proxy';
export { createAddressPolicy, cidrEntries, parseCidrList, inList, addressRefusal, urlRefusal, guardedLookup, type AddressPolicy } from './address-policy';
export { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from './unavailable';
