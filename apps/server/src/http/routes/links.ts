import { FILE_LINK_LIMITS, LINK_LIMITS } from '@mdstore/core';
import * as v from 'valibot';
import { errors, json } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { BrokenLinkList, FileLinks, OrphanList } from '../api/schemas.js';
import { principalOf } from '../auth.js';
import { singleQueryParams } from '../query.js';
import { filenameOf, projectIdOf } from './context.js';

/** The link index (extensions §9): links of a file, broken links and orphans of a project. */

const PAGE_QUERY = {
  limit: {
    schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LINK_LIMITS.pageMax)),
    description: `Page size (default ${LINK_LIMITS.pageDefault}). A page may hold fewer, with a \`next_cursor\`.`,
  },
  cursor: { schema: v.string(), description: '`next_cursor` of the previous page.' },
} as const;

export const fileLinks = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/files/:filename/links',
    operationId: 'getFileLinks',
    summary: 'Links of a file',
    description:
      'Its outgoing links (resolved now: a link to a file created later resolves as soon as it exists) and the links of other files to it, each in file then line order. Paged: a page holds at most `limit` links, the outgoing ones first, then the incoming ones; continue with `next_cursor` until it is null.',
    tags: ['Links'],
    auth: 'apiKey',
    role: 'read',
    query: {
      limit: {
        schema: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(FILE_LINK_LIMITS.pageMax)),
        description: `Links per page, outgoing and incoming together (default ${FILE_LINK_LIMITS.pageDefault}). A page may hold fewer, with a \`next_cursor\`.`,
      },
      cursor: PAGE_QUERY.cursor,
    },
    answers: { 200: json('One page of outgoing and incoming links', FileLinks), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['limit', 'cursor']);
      const links = await store.files.links({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        filename: filenameOf(req),
        ...query,
      });
      res
        .status(200)
        .json({ outgoing: links.outgoing, incoming: links.incoming, next_cursor: links.nextCursor });
    },
);

export const brokenLinks = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/links/broken',
    operationId: 'listBrokenLinks',
    summary: 'Broken links of a project',
    description:
      'Links to no file (`missing`), to several (`ambiguous`, wiki links), or to a file without the heading of their anchor (`anchor`), in source then line order.',
    tags: ['Links'],
    auth: 'apiKey',
    role: 'read',
    query: PAGE_QUERY,
    answers: { 200: json('One page of broken links', BrokenLinkList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['limit', 'cursor']);
      const page = await store.links.broken({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        ...query,
      });
      res.status(200).json({ links: page.links, next_cursor: page.nextCursor });
    },
);

export const orphanFiles = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/links/orphans',
    operationId: 'listOrphans',
    summary: 'Files no other file links to',
    description: 'In filename order; a link of a file to itself does not count.',
    tags: ['Links'],
    auth: 'apiKey',
    role: 'read',
    query: PAGE_QUERY,
    answers: { 200: json('One page of orphans', OrphanList), ...errors(403, 404, 422) },
  },
  ({ store }) =>
    async (req, res) => {
      const query = singleQueryParams(req, ['limit', 'cursor']);
      const page = await store.links.orphans({
        principal: principalOf(res),
        projectId: projectIdOf(req),
        ...query,
      });
      res.status(200).json({ orphans: page.orphans, next_cursor: page.nextCursor });
    },
);

export const linkRoutes = [fileLinks, brokenLinks, orphanFiles];
