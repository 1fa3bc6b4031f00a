// IOU devices (Cisco IOS on Unix): the registry's entry. A device's
// panel (model.ts, Editor.svelte: image, adapters, memory, keepalives,
// its startup and private configs in its folder), the IOU images folder,
// the "New IOU template" dialog (TemplateBody.svelte), and the licence
// in the settings dialog (Licence.svelte, GET and PUT /v2/iou_license).

import * as api from '../../lib/api';
import { imageSource } from '../../lib/stores/images';
import { partBody, typedBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';
import Licence from './Licence.svelte';
import {
  IOU_NODE_FIELDS, emptyIouTemplateForm, iouTemplateForm, iouNodeForm, iouNodeUpdate, iouTemplateField, iouTemplateProps, missingAsEmpty,
  type IouDeps, type IouNodeForm, type IouTemplateForm, type Licence as LicenceBody,
} from './model';
import TemplateBody from './TemplateBody.svelte';

/** The name of a new device, as GNS3 names them: IOU1, IOU2… */
export const NAME_FORMAT = 'IOU{0}';

export const deps: IouDeps = {
  images: imageSource('iou'),
  readConfig: (pid, nid, path) => missingAsEmpty(api.readNodeFile(pid, nid, path)),
  saveConfig: (pid, nid, path, text) => api.writeNodeFile(pid, nid, path, text),
  readLicence: () => api.call((c) => c.GET('/v2/iou_license')),
  saveLicence: (l: LicenceBody) => api.call((c) => c.PUT('/v2/iou_license', { body: l })),
};

/** iouTemplateBody makes an IOU template's POST body from the form, or
 * says by field what cannot be sent as typed. */
export const iouTemplateBody = (f: IouTemplateForm) => {
  const r = iouTemplateProps(f);
  return typedBody('iou', r.ok ? { ok: true, body: { ...r.body, default_name_format: NAME_FORMAT } } : r);
};

export default defineKind<IouNodeForm, IouDeps, IouTemplateForm>({
  type: 'iou',
  title: 'IOU device',
  order: 110,
  form: {
    read: (n) => iouNodeForm(n.properties ?? {}),
    update: (n, f) => {
      const r = iouNodeUpdate(n.properties ?? {}, f);
      return r.ok ? partBody({ properties: r.properties }) : { ok: false, field: r.field, row: null, message: r.message };
    },
    fields: IOU_NODE_FIELDS,
  },
  Editor,
  deps,
  template: {
    title: 'New IOU template',
    lead: 'Devices made from this template run your own IOU image (Cisco IOS on Unix): an L2 image makes switches, an L3 image routers. nodedesk never ships one: upload yours, or put it in the IOU images folder. Put your licence (iourc) in Settings before you start them.',
    testid: 'iou-template-dialog',
    prefix: 'ut',
    width: 560,
    button: { label: 'IOU…', title: 'New IOU template: Cisco switches or routers that run your own IOU image', testid: 'new-iou-template' },
    makes: 'a Cisco switch or router from your IOU image',
    empty: emptyIouTemplateForm,
    read: iouTemplateForm,
    check: iouTemplateBody,
    field: iouTemplateField,
    Body: TemplateBody,
  },
  settings: { title: 'IOU licence', testid: 'iou-licence', Body: Licence },
});
