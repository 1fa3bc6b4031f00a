import { describe, expect, it } from 'vitest';
import {
  adapterRows, customAdapters, dockerFacts, dockerImages, dockerNodeForm, dockerNodeUpdate,
  dockerTemplateField, emptyDockerTemplateForm, followName, tableRows, templateName, tidyLines, volumeList,
  type DockerTemplateForm,
} from './model';
import { dockerTemplateBody } from './index';
import { vpcs } from '../../lib/testdata';
import type { Node } from '../../lib/types';

const form = (over: Partial<DockerTemplateForm>): DockerTemplateForm => ({ ...emptyDockerTemplateForm(), ...over });

const docker = (over: Partial<Node> = {}, props: Record<string, unknown> = {}): Node =>
  vpcs('d1', {
    name: 'busybox-1', node_type: 'docker', console: 5010, console_type: 'telnet',
    properties: {
      image: 'nodedesk-test/busybox:latest', adapters: 2, start_command: '', environment: 'A=1', extra_hosts: '', extra_volumes: ['/data'],
      console_resolution: '1024x768', console_http_port: 80, console_http_path: '/', mac_address: '', aux: 5011, usage: '', ...props,
    },
    ...over,
  });

describe('a template name from its image', () => {
  it("is the repository without tag or digest, '/' as '-', as the GNS3 wizard names it", () => {
    expect(templateName('nodedesk-test/busybox:latest')).toBe('nodedesk-test-busybox');
    expect(templateName('alpine:latest')).toBe('alpine');
    expect(templateName(' frrouting/frr:v8.4.0 ')).toBe('frrouting-frr');
    expect(templateName('frrouting/frr@sha256:0123abcd')).toBe('frrouting-frr');
    expect(templateName('alpine')).toBe('alpine');
  });

  it('leaves out a registry host and Docker Hub\'s library/', () => {
    expect(templateName('ghcr.io/srl-labs/network-multitool:latest')).toBe('srl-labs-network-multitool');
    expect(templateName('localhost:5000/lab/router:1.2')).toBe('lab-router');
    expect(templateName('localhost/router')).toBe('router');
    expect(templateName('docker.io/library/alpine:3.20')).toBe('alpine');
    expect(templateName('library/debian')).toBe('debian');
  });

  it('is empty for no image', () => {
    expect(templateName('')).toBe('');
    expect(templateName('   ')).toBe('');
  });

  it('follows the image until the user types a name of their own', () => {
    expect(followName('', 'alpine:latest', '')).toBe('alpine');
    expect(followName('alpine:latest', 'nodedesk-test/busybox:latest', 'alpine')).toBe('nodedesk-test-busybox');
    expect(followName('alpine:latest', 'debian:12', 'My host')).toBe('My host');
    expect(followName('alpine:latest', '', 'alpine')).toBe('');
  });
});

describe('the images list', () => {
  it('keeps each image name once, in the order given, and drops what is not one', () => {
    expect(dockerImages([{ image: 'b:1' }, { image: 'a:1' }, { image: 'b:1' }, { image: '' }, { image: 3 }, null, 'x'])).toEqual([{ image: 'b:1' }, { image: 'a:1' }]);
  });
});

describe('multi-line fields', () => {
  it('are sent with each line trimmed and no blank line', () => {
    expect(tidyLines('  TZ=UTC \r\n\n\nLANG=C.UTF-8\n  ')).toBe('TZ=UTC\nLANG=C.UTF-8');
    expect(tidyLines('\n \n')).toBe('');
  });

  it('give the extra volumes as a list of paths', () => {
    expect(volumeList(' /etc/frr \n\n/data\n')).toEqual(['/etc/frr', '/data']);
    expect(volumeList('  ')).toEqual([]);
  });
});

describe('the new Docker template form', () => {
  it('sends the image and the name it gives, and only what else was given', () => {
    expect(dockerTemplateBody(form({ image: ' nodedesk-test/busybox:latest ' }))).toEqual({
      ok: true,
      body: { template_type: 'docker', name: 'nodedesk-test-busybox', image: 'nodedesk-test/busybox:latest', category: 'guest', compute_id: 'local' },
    });
  });

  it('sends adapters as a number and the text fields tidied, with GNS3\'s keys', () => {
    const r = dockerTemplateBody(form({
      image: 'frrouting/frr:v8', name: ' FRR ', category: 'router', adapters: ' 4 ', start_command: ' /usr/lib/frr/docker-start ',
      environment: 'TZ=UTC\n\n LANG=C \n', console_type: 'vnc', extra_hosts: 'gw:10.0.0.1\n', extra_volumes: '/etc/frr\n/var/log/frr',
    }));
    expect(r).toEqual({
      ok: true,
      body: {
        template_type: 'docker', name: 'FRR', image: 'frrouting/frr:v8', category: 'router', compute_id: 'local', adapters: 4,
        start_command: '/usr/lib/frr/docker-start', environment: 'TZ=UTC\nLANG=C', console_type: 'vnc', extra_hosts: 'gw:10.0.0.1',
        extra_volumes: ['/etc/frr', '/var/log/frr'],
      },
    });
  });

  it('sends console type none as GNS3 spells it in a template', () => {
    expect(dockerTemplateBody(form({ image: 'alpine', console_type: 'none' }))).toMatchObject({ ok: true, body: { console_type: 'none' } });
  });

  it('says by field what cannot be sent: no image, adapters that are no whole number', () => {
    const r = dockerTemplateBody(form({ adapters: 'two' }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['adapters', 'image']);
    expect(r.errors.image).toMatch(/Pick an image from the list, or type/);
    expect(dockerTemplateBody(form({ image: ':latest' }))).toMatchObject({ ok: false, errors: { name: expect.stringMatching(/Give the template a name/) } });
  });

  it("places the server's error by the field its path names", () => {
    expect(dockerTemplateField('image')).toBe('image');
    expect(dockerTemplateField('properties.adapters')).toBe('adapters');
    expect(dockerTemplateField('extra_volumes.1')).toBe('extra_volumes');
    expect(dockerTemplateField('template_id')).toBeNull();
    expect(dockerTemplateField(undefined)).toBeNull();
  });
});

describe('a Docker node in the panel', () => {
  it('sends nothing when nothing changed', () => {
    const n = docker();
    expect(dockerNodeUpdate(n, dockerNodeForm(n))).toEqual({ ok: true, properties: null, custom_adapters: null });
  });

  it('sends only what changed: numbers as numbers, volumes as a list, an emptied MAC as null', () => {
    const n = docker({}, { mac_address: '02:42:ac:11:00:02' });
    const f = { ...dockerNodeForm(n), adapters: '3', environment: 'A=1\nB=2', extra_volumes: '/data\n/etc/frr', mac_address: ' ', console_http_port: '8080' };
    expect(dockerNodeUpdate(n, f)).toEqual({
      ok: true,
      properties: { adapters: 3, console_http_port: 8080, environment: 'A=1\nB=2', extra_volumes: ['/data', '/etc/frr'], mac_address: null },
      custom_adapters: null,
    });
  });

  it('names the field of a number that is not whole', () => {
    const n = docker();
    expect(dockerNodeUpdate(n, { ...dockerNodeForm(n), adapters: '2.5' })).toMatchObject({ ok: false, field: 'adapters' });
    expect(dockerNodeUpdate(n, { ...dockerNodeForm(n), console_http_port: '' })).toMatchObject({ ok: false, field: 'console_http_port' });
  });

  it('has a custom adapters row per adapter, and sends only the adapters with something set', () => {
    const n = docker({ custom_adapters: [{ adapter_number: 1, port_name: 'wan', adapter_type: 'TAP' }] });
    const f = dockerNodeForm(n);
    expect(f.custom_adapters.map((r) => [r.adapter_number, r.port_name, r.mac_address])).toEqual([[0, '', ''], [1, 'wan', '']]);
    f.custom_adapters[0].mac_address = '02:00:00:00:00:01';
    expect(dockerNodeUpdate(n, f)).toEqual({
      ok: true,
      properties: null,
      custom_adapters: [{ adapter_number: 0, mac_address: '02:00:00:00:00:01' }, { adapter_type: 'TAP', adapter_number: 1, port_name: 'wan' }],
    });
  });

  it('grows and cuts the rows with the adapters typed; fewer adapters drop the others\' custom names', () => {
    const n = docker({ custom_adapters: [{ adapter_number: 1, port_name: 'wan' }] });
    const f = dockerNodeForm(n);
    expect(tableRows({ ...f, adapters: '4' }).map((r) => r.adapter_number)).toEqual([0, 1, 2, 3]);
    expect(tableRows({ ...f, adapters: 'x' })).toBe(f.custom_adapters);
    expect(dockerNodeUpdate(n, { ...f, adapters: '1' })).toEqual({ ok: true, properties: { adapters: 1 }, custom_adapters: [] });
    expect(customAdapters(adapterRows([], 3))).toEqual([]);
  });

  it('shows its aux console, container and usage as facts', () => {
    const facts = dockerFacts(docker({}, { container_id: 'f00dfeedbeef0123456789', usage: 'Log in as root.' }));
    expect(facts.map((f) => [f.key, f.value])).toEqual([
      ['aux', 'port 5011 (a shell in the container)'], ['container_id', 'f00dfeedbeef'], ['usage', 'Log in as root.'],
    ]);
    expect(dockerFacts(docker({}, { aux: null }))).toEqual([]);
  });
});
