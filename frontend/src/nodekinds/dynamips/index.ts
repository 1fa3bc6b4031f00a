// Dynamips routers (Cisco IOS, emulated): the registry's entry. A
// router's panel (model.ts, Editor.svelte: image, memory, the slot menus
// from GET /v2/dynamips/platforms, idle PC and its search, the startup
// config), the IOS images folder, and the "New IOS router template"
// dialog (TemplateBody.svelte).

import { writable } from 'svelte/store';
import * as api from '../../lib/api';
import { imageSource } from '../../lib/stores/images';
import type { DynamipsPlatformInfo } from '../../lib/types';
import { partBody, typedBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';
import {
  DYNAMIPS_NODE_FIELDS, dynamipsNodeForm, dynamipsNodeUpdate, emptyIOSTemplateForm, iosTemplateForm, iosTemplateField, iosTemplateProps,
  type DynamipsNodeForm, type DynamipsDeps, type IOSTemplateForm,
} from './model';
import IdlePCStep from './IdlePCStep.svelte';
import TemplateBody from './TemplateBody.svelte';

/** dynamipsPlatforms describes the router platforms of Dynamips nodes:
 * each chassis, the adapters that fit each slot, the WICs, the c7200's
 * NPEs and midplanes (the server's matrix: the UI repeats none of it). */
export const dynamipsPlatforms = () => api.call((c) => c.GET('/v2/dynamips/platforms'));

/** autoIdlePC finds an idle-PC value for a running router and keeps it as
 * the router's idlepc (it takes a while: the router is sampled). */
export const autoIdlePC = (pid: string, nid: string): Promise<{ idlepc: string }> =>
  api.call((c) => c.GET('/v2/projects/{project_id}/nodes/{node_id}/dynamips/auto_idlepc', { params: { path: { project_id: pid, node_id: nid } } })) as Promise<{ idlepc: string }>;

/** findImageIdlePC finds an idle-PC value for an IOS image on this
 * nodedesk (a router of it boots for about 20 s in a project of its own). */
export const findImageIdlePC = (body: { platform: string; image: string; ram: number }): Promise<{ idlepc: string }> =>
  api.call((c) => c.POST('/v2/computes/{compute_id}/auto_idlepc', { params: { path: { compute_id: 'local' } }, body })) as Promise<{ idlepc: string }>;

/** The platforms by name; empty until loaded. */
const platforms = writable<Map<string, DynamipsPlatformInfo>>(new Map());
let asked = false;

/** loadPlatforms asks once for the platform catalogue. */
function loadPlatforms(): void {
  if (asked) return;
  asked = true;
  dynamipsPlatforms().then(
    (list) => platforms.set(new Map(list.map((p) => [p.platform, p]))),
    () => {
      asked = false; // asked again the next time a panel wants it
    },
  );
}

export const deps: DynamipsDeps = {
  platforms,
  loadPlatforms,
  images: imageSource('dynamips'),
  findIdlePC: autoIdlePC,
  findImageIdlePC,
  readStartupConfig: (pid, nid, path) => api.readNodeFile(pid, nid, path),
  saveStartupConfig: (pid, nid, path, text) => api.writeNodeFile(pid, nid, path, text),
};

/** iosTemplateBody makes an IOS router template's POST body from the
 * form, or says by field what cannot be sent as typed. */
export const iosTemplateBody = (f: IOSTemplateForm) => typedBody('dynamips', iosTemplateProps(f));

export default defineKind<DynamipsNodeForm, DynamipsDeps, IOSTemplateForm>({
  type: 'dynamips',
  title: 'Dynamips router',
  order: 100,
  form: {
    read: (n) => dynamipsNodeForm(n.properties ?? {}),
    update: (n, f) => {
      const r = dynamipsNodeUpdate(n.properties ?? {}, f);
      return r.ok ? partBody({ properties: r.properties }) : { ok: false, field: r.field, row: null, message: r.message };
    },
    fields: DYNAMIPS_NODE_FIELDS,
  },
  Editor,
  deps,
  template: {
    title: 'New IOS router template',
    lead: 'Routers made from this template are Cisco routers emulated by Dynamips, running your own IOS image. nodedesk never ships one: upload yours, or put it in the IOS images folder.',
    testid: 'ios-template-dialog',
    prefix: 'it',
    width: 520,
    button: { label: 'IOS router…', title: 'New IOS router template: Cisco routers emulated by Dynamips, running your own IOS image', testid: 'new-ios-template' },
    makes: 'a router from your IOS image',
    empty: emptyIOSTemplateForm,
    read: iosTemplateForm,
    check: iosTemplateBody,
    field: iosTemplateField,
    Body: TemplateBody,
    After: IdlePCStep,
  },
});
