import type { Request } from 'express';
import type { ControllerRegistry } from '@ocg/http';

/**
 * tsoa's iocModule, as a factory: each app carries its own controllers in
 * app.locals (buildApp puts them there), so tests can run several apps with
 * different settings in one process.
 */
export const iocContainer = (req: Request): ControllerRegistry => req.app.locals.controllers as ControllerRegistry;
