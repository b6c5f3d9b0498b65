import { pipeline } from 'node:stream/promises';
import type { ByteStream, MdStore } from '@mdstore/core';
import type { Request, Response } from 'express';
import { principalOf } from './auth.js';
import { readJsonBody, requireMediaType } from './body.js';
import { attachmentDisposition } from './content-disposition.js';
import { type MultipartLimits, receiveUpload } from './multipart.js';
import { fileJson, fileUpdateJson, isoDate, projectJson } from './views.js';

export interface HttpLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Handler = (req: Request, res: Response) => Promise<void>;
export type RouteHandlers = Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', Handler>>;

interface RouteDeps {
  readonly store: MdStore;
  readonly logger: HttpLogger;
  readonly maxJsonBytes: number;
  readonly multipartLimits: MultipartLimits;
}

/** Path parameters, percent-decoded by the router (`%2F` in a filename stays inside its segment). */
const projectIdOf = (req: Request): string => String(req.params.project_id ?? '');
const filenameOf = (req: Request): string => String(req.params.filename ?? '');

/**
 * Aborted when the client goes away before the answer is complete. Made on first use, by the routes that
 * stream (uploads, downloads, content): an AbortController and a listener per request cost the JSON
 * routes measurable time for nothing.
 */
const signalOf = (res: Response): AbortSignal => {
  const existing = res.locals.signal as AbortSignal | undefined;
  if (existing) return existing;
  const controller = new AbortController();
  const abortIfIncomplete = () => {
    if (!res.writableFinished) controller.abort(new Error('The client went away'));
  };
  if (res.closed) abortIfIncomplete();
  else res.once('close', abortIfIncomplete);
  res.locals.signal = controller.signal;
  return controller.signal;
};

/**
 * Path id (422), existence (404) and ownership (403) of the project, checked before the transport reads
 * or judges the body (415, 400, 413), so that those answers follow the documented order of checks and
 * another account's project gets 403 whatever body comes with the request.
 */
const checkProjectAccess = async (store: MdStore, req: Request, res: Response): Promise<void> => {
  await store.projects.get({ principal: principalOf(res), projectId: projectIdOf(req) });
};

/** Every route of the interface. A path whose method is not listed answers 405 with `Allow`. */
export function routeTable(deps: RouteDeps): Record<string, RouteHandlers> {
  const { store } = deps;
  return {
    '/api/projects': {
      GET: async (_req, res) => {
        const projects = await store.projects.list({ principal: principalOf(res) });
        res.status(200).json({ projects: projects.map(projectJson), total_count: projects.length });
      },
      POST: async (req, res) => {
        const body = await readJsonBody(req, deps.maxJsonBytes);
        const project = await store.projects.create({ principal: principalOf(res), body });
        res.status(201).json(projectJson(project));
      },
    },
    '/api/projects/:project_id': {
      GET: async (req, res) => {
        const project = await store.projects.get({
          principal: principalOf(res),
          projectId: projectIdOf(req),
        });
        res.status(200).json(projectJson(project));
      },
      PUT: async (req, res) => {
        await checkProjectAccess(store, req, res);
        const body = await readJsonBody(req, deps.maxJsonBytes);
        const project = await store.projects.update({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          body,
        });
        res.status(200).json(projectJson(project));
      },
      DELETE: async (req, res) => {
        const { projectId } = await store.projects.delete({
          principal: principalOf(res),
          projectId: projectIdOf(req),
        });
        res.status(200).json({ message: 'Project deleted successfully', project_id: projectId });
      },
    },
    '/api/projects/:project_id/files': {
      GET: async (req, res) => {
        const list = await store.files.list({ principal: principalOf(res), projectId: projectIdOf(req) });
        res.status(200).json({
          files: list.files.map(fileJson),
          total_count: list.totalCount,
          total_size_bytes: list.totalSizeBytes,
        });
      },
      POST: async (req, res) => {
        await checkProjectAccess(store, req, res);
        const signal = signalOf(res);
        const file = await receiveUpload(req, {
          limits: deps.multipartLimits,
          signal,
          upload: (part) =>
            store.files.upload({ principal: principalOf(res), projectId: projectIdOf(req), signal, ...part }),
        });
        res.status(201).json(fileJson(file));
      },
    },
    '/api/projects/:project_id/files/:filename': {
      GET: (req, res) => download(deps, req, res),
      PUT: async (req, res) => {
        await checkProjectAccess(store, req, res);
        const body = await readJsonBody(req, deps.maxJsonBytes);
        const file = await store.files.updateMetadata({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          body,
        });
        res.status(200).json(fileUpdateJson(file));
      },
      DELETE: async (req, res) => {
        await store.files.delete({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
        });
        res.status(204).end();
      },
    },
    '/api/projects/:project_id/files/:filename/content': {
      PUT: async (req, res) => {
        await checkProjectAccess(store, req, res);
        requireMediaType(req, 'text/markdown');
        const file = await store.files.updateContent({
          principal: principalOf(res),
          projectId: projectIdOf(req),
          filename: filenameOf(req),
          // Not destroyed when the core stops early (413, 400): the error answer must still get through.
          content: req.iterator({ destroyOnReturn: false }) as ByteStream,
          signal: signalOf(res),
        });
        res.status(200).json(fileUpdateJson(file));
      },
    },
  };
}

/** Streams the content with backpressure; a client that goes away aborts the read. */
async function download(deps: RouteDeps, req: Request, res: Response): Promise<void> {
  const { file, content } = await deps.store.files.download({
    principal: principalOf(res),
    projectId: projectIdOf(req),
    filename: filenameOf(req),
    signal: signalOf(res),
  });
  res.status(200);
  res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
  res.setHeader('Content-Length', String(file.sizeBytes));
  res.setHeader('Content-Disposition', attachmentDisposition(file.filename));
  res.setHeader('X-File-Size', String(file.sizeBytes));
  res.setHeader('X-Created-Date', isoDate(file.createdAt));
  res.setHeader('X-Updated-Date', isoDate(file.updatedAt));
  if (req.method === 'HEAD') {
    await content[Symbol.asyncIterator]().return?.();
    res.end();
    return;
  }
  try {
    await pipeline(content, res);
  } catch (error) {
    if (res.destroyed && !res.writableFinished && signalOf(res).aborted) return; // the client left
    deps.logger.warn('download interrupted', {
      path: req.originalUrl.split('?', 1)[0],
      error: error instanceof Error ? error.message : String(error),
    });
    res.destroy();
  }
}
