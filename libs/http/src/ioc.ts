import type { Request } from 'express';
import type { IocContainer, ServiceIdentifier } from '@tsoa/runtime';

/**
 * The tsoa ioc hook without a DI framework: main.ts (the composition root)
 * builds every controller and registers the instances here.
 */
export class ControllerRegistry implements IocContainer {
  private readonly instances = new Map<unknown, unknown>();

  register<T>(ctor: ServiceIdentifier<T>, instance: T): this {
    this.instances.set(ctor, instance);
    return this;
  }

  get<T>(controller: ServiceIdentifier<T>): T;
  get<T>(controller: ServiceIdentifier<T>): Promise<T>;
  get<T>(controller: ServiceIdentifier<T>): T | Promise<T> {
    const instance = this.instances.get(controller);
    if (!instance) throw new Error(`No controller instance registered for ${String((controller as { name?: string }).name ?? controller)}`);
    return instance as T;
  }
}

/**
 * Every service's tsoa iocModule (`src/ioc.ts` re-exports it): the registry of
 * the app serving the request, which buildServiceApp puts in app.locals. One
 * registry per app, not per module, so tests can run several apps with
 * different settings in one process.
 */
export const iocContainer = (req: Request): ControllerRegistry => {
  const controllers = req.app.locals.controllers as ControllerRegistry | undefined;
  if (!controllers) throw new Error('this app has no controller registry (build it with buildServiceApp)');
  return controllers;
};
