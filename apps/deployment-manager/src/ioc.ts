import { ControllerRegistry } from '@ocg/http';

/** tsoa's iocModule: buildApp registers the controller instances it builds. */
export const iocContainer = new ControllerRegistry();
