/**
 * Driving the app service as the renderer does, for tests: a command through the one IPC gate
 * (`dispatch`), and waiting for an event the service emitted. The service is made in a
 * `beforeAll`, so it is passed as a getter.
 */
import { dispatch } from '../../core/app/gate.ts';
import type { AppService } from '../../core/app/app-service.ts';
import type { Events, EventName } from '../../core/api/channels.ts';

export interface EmittedEvent {
  name: EventName;
  payload: unknown;
}

export interface ServiceCalls {
  call<T = unknown>(name: string, payload?: unknown): Promise<{ ok: boolean; value: T; error: { code: string; message: string } }>;
  /** The first event of `name` (already emitted or still to come) that passes `test`. */
  waitFor<E extends EventName>(name: E, test: (p: Events[E]) => boolean, timeoutMs?: number): Promise<Events[E]>;
}

export function serviceCalls(service: () => AppService, events: EmittedEvent[], defaultTimeoutMs = 60_000): ServiceCalls {
  return {
    call<T = unknown>(name: string, payload?: unknown) {
      return dispatch(service().handlers, name, payload) as Promise<{ ok: boolean; value: T; error: { code: string; message: string } }>;
    },
    waitFor<E extends EventName>(name: E, test: (p: Events[E]) => boolean, timeoutMs = defaultTimeoutMs): Promise<Events[E]> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${name} event in ${timeoutMs} ms`)), timeoutMs);
        const poll = setInterval(() => {
          const hit = events.find((e) => e.name === name && test(e.payload as Events[E]));
          if (hit) {
            clearInterval(poll);
            clearTimeout(timer);
            resolve(hit.payload as Events[E]);
          }
        }, 10);
      });
    },
  };
}
