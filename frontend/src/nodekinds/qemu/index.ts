// QEMU virtual machines: the registry's entry. The VM fields of the node
// panel (model.ts, Editor.svelte), the images folder and how this
// nodedesk runs guests (KVM, or TCG and a note saying it is slower,
// asked once), and the "New QEMU template" dialog (TemplateBody.svelte).

import { writable } from 'svelte/store';
import * as api from '../../lib/api';
import { imageSource } from '../../lib/stores/images';
import { partBody, typedBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';
import {
  QEMU_NODE_FIELDS, emptyQemuTemplateForm, qemuTemplateForm, qemuNodeForm, qemuNodeUpdate, qemuTemplateField, qemuTemplateProps,
  type QemuCapabilities, type QemuNodeForm, type QemuDeps, type QemuTemplateForm,
} from './model';
import TemplateBody from './TemplateBody.svelte';

/** qemuCapabilities says how a compute runs QEMU guests (KVM or TCG, and
 * a note to show when it is slower). */
export const qemuCapabilities = (compute = 'local'): Promise<QemuCapabilities> =>
  api.call((c) => c.GET('/v2/computes/{compute_id}/qemu/capabilities', { params: { path: { compute_id: compute } } }));

/** How this nodedesk runs guests; null until known, or when it does not
 * say (an older nodedesk answers 404). */
const capabilities = writable<QemuCapabilities | null>(null);
let asked = false;

/** loadCapabilities asks once how guests run. */
function loadCapabilities(): void {
  if (asked) return;
  asked = true;
  qemuCapabilities().then(
    (c) => capabilities.set(c && typeof c === 'object' ? c : null),
    () => {
      asked = false; // asked again the next time a panel wants it
    },
  );
}

export const deps: QemuDeps = { images: imageSource('qemu'), capabilities, loadCapabilities, binaryLabel: 'QEMU' };

/** qemuTemplateBody makes a QEMU template's POST body from the form, or says
 * by field what cannot be sent as typed. */
export const qemuTemplateBody = (f: QemuTemplateForm) => typedBody('qemu', qemuTemplateProps(f));

export default defineKind<QemuNodeForm, QemuDeps, QemuTemplateForm>({
  type: 'qemu',
  title: 'QEMU VM',
  order: 80,
  form: {
    read: (n) => qemuNodeForm(n.properties ?? {}),
    update: (n, f) => {
      const r = qemuNodeUpdate(n.properties ?? {}, f);
      return r.ok ? partBody({ properties: r.properties }) : { ok: false, field: r.field, row: null, message: r.message };
    },
    fields: QEMU_NODE_FIELDS,
  },
  Editor,
  deps,
  template: {
    title: 'New QEMU template',
    lead: 'A template is a kind of device for the palette: nodes made from it are QEMU virtual machines that boot its image.',
    testid: 'qemu-template-dialog',
    prefix: 'qt',
    width: 560,
    appliances: true,
    button: { label: 'QEMU…', title: 'New QEMU template: a device that runs a QEMU virtual machine from an image', testid: 'new-qemu-template' },
    makes: 'a VM from a disk image',
    empty: emptyQemuTemplateForm,
    read: qemuTemplateForm,
    check: qemuTemplateBody,
    field: qemuTemplateField,
    Body: TemplateBody,
  },
});
