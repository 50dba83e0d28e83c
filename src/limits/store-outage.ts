// A limit shared through the control store (split roles, DESIGN §10) cannot be decided while that store is out of
// reach. The request is refused with the catalogue's transient 503 (spec Authentication rule 11: the same database
// answers key lookups; clients retry it) rather than admitted past a cap no process can see, or answered with a 500.
import { errors } from '../errors.js';
import { ControlStoreUnavailableError } from '../stores/control/control-store.js';

export async function orUnavailable<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    if (e instanceof ControlStoreUnavailableError) throw errors.authUnavailable();
    throw e;
  }
}
