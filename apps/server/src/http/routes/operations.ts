import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { Health, Readiness } from '../api/schemas.js';
import { serveReadiness } from '../readiness.js';

/** `/healthz` and `/readyz` (extensions §6): outside `/api`, no key. */

export const getHealth = defineRoute(
  {
    method: 'GET',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Health',
    description: 'The process answers HTTP. No key.',
    tags: ['Operations'],
    auth: 'none',
    role: null,
    answers: { 200: json('The process is up', Health) },
  },
  () => (_req, res) => {
    res.status(200).json({ status: 'ok' });
  },
);

export const getReadiness = defineRoute(
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness',
    description:
      'The records store and the blob store answer within 2 s (the probe may be reused for 1 s). No key.',
    tags: ['Operations'],
    auth: 'none',
    role: null,
    answers: {
      200: json('Ready', Readiness, ['Cache-Control']),
      503: {
        ...errors(503)[503]!,
        description: 'Not ready: `detail` names the store that failed',
        headers: ['Cache-Control'],
      },
    },
  },
  (deps) => serveReadiness(deps.readiness),
);

export const operationRoutes = [getHealth, getReadiness];
