// tsoa's iocModule: the controllers of the app serving the request (ADR 0063).
export { iocContainer } from '@ocg/http';
