// Each template dialog edits an existing template: its form read from the
// template as the server gives it (GNS3 keeps the settings beside the
// common keys) gives back the same body, so saving without a change
// changes nothing, and a field changed is the only change.
import { describe, expect, it } from 'vitest';
import type { Template } from '../lib/types';
import { findKind, templateKinds } from '.';

const base = { compute_id: 'local', default_name_format: '{name}-{0}', symbol: '', builtin: false } as const;
const samples: Record<string, Template> = {
  qemu: { ...base, template_id: 'q', template_type: 'qemu', name: 'Debian', category: 'router', hda_disk_image: 'd.qcow2', ram: 384, cpus: 2, adapters: 4, adapter_type: 'e1000', console_type: 'telnet' } as Template,
  docker: { ...base, template_id: 'd', template_type: 'docker', name: 'Alpine', category: 'guest', image: 'alpine:3', adapters: 2, start_command: 'sh', environment: 'A=1', console_type: 'telnet', extra_hosts: '', extra_volumes: ['/data'] } as Template,
  iou: { ...base, template_id: 'i', template_type: 'iou', name: 'L2', category: 'switch', path: 'i86bi-l2.bin', startup_config: 'iou_l2_base_startup-config.txt', private_config: '', default_name_format: 'IOU{0}', symbol: ':/symbols/multilayer_switch.svg', ethernet_adapters: 4, serial_adapters: 0, ram: 512, nvram: 128, use_default_iou_values: true, l1_keepalives: false, console_type: 'telnet' } as Template,
  dynamips: { ...base, template_id: 'r', template_type: 'dynamips', name: 'c7200', category: 'router', image: 'c7200.image', platform: 'c7200', chassis: '', ram: 512 } as Template,
};

describe('a template dialog opened on an existing template', () => {
  it('has a sample for every type with a dialog', () => {
    expect(templateKinds.map((k) => k.type).sort()).toEqual(Object.keys(samples).sort());
  });
  for (const [type, t] of Object.entries(samples)) {
    it(`${type}: reads the template into its form and gives back its values`, () => {
      const tk = findKind(type)!.template!;
      const r = tk.check(tk.read(t));
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      const body = r.body as Record<string, unknown>;
      for (const [k, v] of Object.entries(body)) {
        if (k === 'template_type' || k === 'compute_id') continue;
        expect(v, k).toEqual((t as Record<string, unknown>)[k]);
      }
      expect(body.name).toBe(t.name);
    });
  }
});
