import { ControllerRegistry } from '@ocg/http';

/** tsoa's iocModule: main.ts registers the controller instances it builds. */
export const iocContainer = new ControllerRegistry();
