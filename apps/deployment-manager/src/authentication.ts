import { AuthenticationRegistry } from '@ocg/auth';

/** tsoa's authenticationModule: buildApp installs the real authentication, built from config. */
export const authentication = new AuthenticationRegistry();
export const expressAuthentication = authentication.expressAuthentication;
