import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors';
import {
  checkAdapters, emptyIouTemplateForm, guessLayer, imagePicked, iouFacts, iouNodeForm, iouNodeUpdate, iouTemplateField,
  licenceBody, missingAsEmpty, templateName, withLayer, type IouTemplateForm,
} from './model';
import { iouTemplateBody } from './index';

const form = (over: Partial<IouTemplateForm> = {}): IouTemplateForm => ({ ...emptyIouTemplateForm(), ...over });

describe('guessLayer', () => {
  it.each([
    'i86bi-linux-l2-adventerprisek9-15.1a.bin',
    'i86bi_LinuxL2-IpBaseK9-M_152_May_2018.bin',
    'I86BI-LINUX-L2-IPBASE.BIN',
    '/images/IOU/x86_64_crb_linux_l2-adventerprisek9-ms.bin',
  ])('%s is a switch image', (name) => {
    expect(guessLayer(name)).toBe('l2');
  });
  it.each([
    'i86bi-linux-l3-adventerprisek9-15.4.1T.bin',
    'i86bi_LinuxL3-AdvEnterpriseK9-M2_157_3_May_2018.bin',
    'x86_64_crb_linux-adventerprisek9-ms',
    'iou.bin',
    '',
  ])('%s is a router image', (name) => {
    expect(guessLayer(name)).toBe('l3');
  });
  it('reads the file name only, not its folder', () => {
    expect(guessLayer('/srv/l2-images/i86bi-linux-l3.bin')).toBe('l3');
  });
});

describe('the template dialog', () => {
  it("opens with GNS3's defaults for an L3 image", () => {
    expect(emptyIouTemplateForm()).toEqual({
      name: '', path: '', layer: 'l3', ethernet_adapters: '2', serial_adapters: '2', ram: '1024', nvram: '256',
      use_default_iou_values: false, l1_keepalives: false, console_type: 'telnet',
    });
  });

  it('gives an L2 image 4 Ethernet adapters and no serial, an L3 image 2 and 2', () => {
    expect(withLayer(form(), 'l2')).toMatchObject({ layer: 'l2', ethernet_adapters: '4', serial_adapters: '0' });
    expect(withLayer(withLayer(form(), 'l2'), 'l3')).toMatchObject({ layer: 'l3', ethernet_adapters: '2', serial_adapters: '2' });
  });

  it('reads the layer of a picked image and names the template after it until a name is typed', () => {
    const l2 = imagePicked(form(), '', 'i86bi-linux-l2-ipbase.bin');
    expect(l2).toMatchObject({ path: 'i86bi-linux-l2-ipbase.bin', layer: 'l2', ethernet_adapters: '4', serial_adapters: '0', name: 'i86bi-linux-l2-ipbase' });
    const l3 = imagePicked(l2, l2.path, 'i86bi-linux-l3-adventerprisek9.bin');
    expect(l3).toMatchObject({ layer: 'l3', ethernet_adapters: '2', serial_adapters: '2', name: 'i86bi-linux-l3-adventerprisek9' });
    const typed = imagePicked({ ...l3, name: 'Core' }, l3.path, 'i86bi-linux-l2-ipbase.bin');
    expect(typed.name).toBe('Core');
  });

  it('names a template after the file name without its extension', () => {
    expect(templateName(' /x/i86bi-linux-l3.BIN ')).toBe('i86bi-linux-l3');
    expect(templateName('x86_64_crb_linux-adventerprisek9-ms')).toBe('x86_64_crb_linux-adventerprisek9-ms');
  });

  it("sends an L3 template with every key of GNS3's wizard and defaults", () => {
    expect(iouTemplateBody(form({ name: ' R ', path: 'i86bi-linux-l3.bin' }))).toEqual({
      ok: true,
      body: {
        template_type: 'iou', name: 'R', compute_id: 'local', path: 'i86bi-linux-l3.bin',
        ethernet_adapters: 2, serial_adapters: 2, ram: 1024, nvram: 256, use_default_iou_values: false, l1_keepalives: false,
        startup_config: 'iou_l3_base_startup-config.txt', private_config: '', console_type: 'telnet',
        symbol: ':/symbols/router.svg', category: 'router', default_name_format: 'IOU{0}',
      },
    });
  });

  it('sends an L2 template as a switch with the L2 base config', () => {
    const f = imagePicked(form(), '', 'i86bi-linux-l2.bin');
    expect(iouTemplateBody(f)).toMatchObject({
      ok: true,
      body: {
        name: 'i86bi-linux-l2', ethernet_adapters: 4, serial_adapters: 0, startup_config: 'iou_l2_base_startup-config.txt',
        symbol: ':/symbols/multilayer_switch.svg', category: 'switch',
      },
    });
  });

  it('asks for a name and an image, and says what is wrong by field', () => {
    expect(iouTemplateBody(form({ name: ' ', path: '', ram: 'lots', nvram: '0', serial_adapters: '17' }))).toEqual({
      ok: false,
      errors: {
        name: expect.any(String), path: expect.any(String), serial_adapters: expect.stringMatching(/0 to 16/),
        ram: expect.stringMatching(/MB/), nvram: expect.stringMatching(/KB/),
      },
    });
  });

  it('names the form field of a server error', () => {
    expect(iouTemplateField('properties.ethernet_adapters')).toBe('ethernet_adapters');
    expect(iouTemplateField('path')).toBe('path');
    expect(iouTemplateField('symbol')).toBeNull();
    expect(iouTemplateField(null)).toBeNull();
  });
});

describe('checkAdapters', () => {
  it('takes 0 to 16 of each, 16 at most together', () => {
    expect(checkAdapters('0', '0')).toEqual({ ok: true, ethernet_adapters: 0, serial_adapters: 0 });
    expect(checkAdapters('16', '0')).toEqual({ ok: true, ethernet_adapters: 16, serial_adapters: 0 });
    expect(checkAdapters(' 8 ', '8')).toEqual({ ok: true, ethernet_adapters: 8, serial_adapters: 8 });
  });
  it('refuses a count out of 0–16 or not a whole number, naming its field', () => {
    expect(checkAdapters('17', '0')).toMatchObject({ ok: false, field: 'ethernet_adapters' });
    expect(checkAdapters('-1', '0')).toMatchObject({ ok: false, field: 'ethernet_adapters' });
    expect(checkAdapters('', '0')).toMatchObject({ ok: false, field: 'ethernet_adapters' });
    expect(checkAdapters('2', '2.5')).toMatchObject({ ok: false, field: 'serial_adapters' });
    expect(checkAdapters('2', '17')).toMatchObject({ ok: false, field: 'serial_adapters' });
  });
  it('refuses more than 16 together, at the field the user changed', () => {
    expect(checkAdapters('9', '8')).toMatchObject({ ok: false, field: 'serial_adapters', message: expect.stringContaining('17') });
    expect(checkAdapters('9', '8', 'ethernet_adapters')).toMatchObject({ ok: false, field: 'ethernet_adapters' });
  });
});

describe('the device form', () => {
  const p = {
    path: 'i86bi-linux-l3.bin', md5sum: '0123456789abcdef0123456789abcdef', application_id: 3, ethernet_adapters: 2, serial_adapters: 2,
    ram: 256, nvram: 128, l1_keepalives: false, use_default_iou_values: true,
  };

  it('reads the device', () => {
    expect(iouNodeForm(p)).toEqual({
      path: 'i86bi-linux-l3.bin', ethernet_adapters: '2', serial_adapters: '2', ram: '256', nvram: '128', l1_keepalives: false, use_default_iou_values: true,
    });
  });

  it('sends nothing when nothing changed', () => {
    expect(iouNodeUpdate(p, iouNodeForm(p))).toEqual({ ok: true, properties: null });
  });

  it('sends exactly what changed, numbers as numbers', () => {
    const f = iouNodeForm(p);
    f.path = 'i86bi-linux-l2.bin';
    f.serial_adapters = '0';
    f.ram = '512';
    f.l1_keepalives = true;
    f.use_default_iou_values = false;
    expect(iouNodeUpdate(p, f)).toEqual({
      ok: true, properties: { path: 'i86bi-linux-l2.bin', serial_adapters: 0, ram: 512, l1_keepalives: true, use_default_iou_values: false },
    });
  });

  it('keeps the adapters within bounds', () => {
    const f = iouNodeForm(p);
    f.ethernet_adapters = '15';
    expect(iouNodeUpdate(p, f)).toMatchObject({ ok: false, field: 'ethernet_adapters', message: expect.stringContaining('17') });
    f.ethernet_adapters = '14';
    expect(iouNodeUpdate(p, f)).toEqual({ ok: true, properties: { ethernet_adapters: 14 } });
    f.serial_adapters = 'two';
    expect(iouNodeUpdate(p, f)).toMatchObject({ ok: false, field: 'serial_adapters' });
  });

  it('refuses an emptied image or memory', () => {
    expect(iouNodeUpdate(p, { ...iouNodeForm(p), path: '' })).toMatchObject({ ok: false, field: 'path' });
    expect(iouNodeUpdate(p, { ...iouNodeForm(p), nvram: '' })).toMatchObject({ ok: false, field: 'nvram' });
    expect(iouNodeUpdate(p, { ...iouNodeForm(p), ram: '0' })).toMatchObject({ ok: false, field: 'ram' });
  });

  it("shows the server's application ID and image checksum, only those it has", () => {
    expect(iouFacts(p)).toEqual([
      { key: 'application_id', label: 'Application ID', value: '3' },
      { key: 'md5sum', label: 'Image MD5', value: '0123456789abcdef0123456789abcdef' },
    ]);
    expect(iouFacts({})).toEqual([]);
  });
});

describe('the config files', () => {
  it('read as empty when the device has none yet, and fail otherwise', async () => {
    await expect(missingAsEmpty(Promise.resolve('hostname R1\n'))).resolves.toBe('hostname R1\n');
    await expect(missingAsEmpty(Promise.reject(new AppError('no such file', 404, 'not_found')))).resolves.toBe('');
    await expect(missingAsEmpty(Promise.reject(new AppError('denied', 403, 'forbidden')))).rejects.toMatchObject({ status: 403 });
  });
});

describe('licenceBody', () => {
  it('sends the iourc trimmed with Unix line ends, as GNS3 does', () => {
    expect(licenceBody('\r\n[license]\r\nhost = 0123456789abcdef;\r\n\r\n', false)).toEqual({
      iourc_content: '[license]\nhost = 0123456789abcdef;', license_check: false,
    });
  });
});
