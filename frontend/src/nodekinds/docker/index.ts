// Docker containers: the registry's entry. A node's container in the
// node panel (model.ts, Editor.svelte), the images of this nodedesk's
// Docker Engine, and the "New Docker template" dialog
// (TemplateBody.svelte).

import * as api from '../../lib/api';
import { engineImages } from '../../lib/stores/images';
import { partBody, typedBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';
import {
  DOCKER_NODE_FIELDS, dockerImages, dockerNodeForm, dockerNodeUpdate, dockerTemplateField, dockerTemplateProps, emptyDockerTemplateForm, dockerTemplateForm,
  type DockerImage, type DockerNodeForm, type DockerDeps, type DockerTemplateForm,
} from './model';
import TemplateBody from './TemplateBody.svelte';

/** listDockerImages lists the images of a compute's Docker Engine, each
 * once ([{image: "alpine:latest"}, …]); 409, saying why and what to do,
 * when Docker cannot be reached there. */
export const listDockerImages = async (compute = 'local'): Promise<DockerImage[]> =>
  dockerImages(await api.call((c) => c.GET('/v2/computes/{compute_id}/docker/images', { params: { path: { compute_id: compute } } })));

export const deps: DockerDeps = {
  images: engineImages(() => listDockerImages(), { engine: 'Docker', pull: 'docker pull alpine', import: 'docker load' }),
};

/** dockerTemplateBody makes a Docker template's POST body from the form,
 * or says by field what cannot be sent. */
export const dockerTemplateBody = (f: DockerTemplateForm) => typedBody('docker', dockerTemplateProps(f));

export default defineKind<DockerNodeForm, DockerDeps, DockerTemplateForm>({
  type: 'docker',
  title: 'Docker container',
  order: 90,
  form: {
    read: dockerNodeForm,
    update: (n, f) => {
      const r = dockerNodeUpdate(n, f);
      return r.ok ? partBody({ properties: r.properties, custom_adapters: r.custom_adapters }) : { ok: false, field: r.field, row: null, message: r.message };
    },
    fields: DOCKER_NODE_FIELDS,
  },
  Editor,
  deps,
  template: {
    title: 'New Docker template',
    lead: "A template is a kind of device for the palette: nodes made from it are containers of its image, run by this machine's Docker, one network interface (eth0, eth1, …) per adapter.",
    testid: 'docker-template-dialog',
    prefix: 'dt',
    width: 600,
    button: { label: 'Docker…', title: 'New Docker template: a device that runs a container of a Docker image', testid: 'new-docker-template' },
    makes: 'a container from a Docker image',
    empty: emptyDockerTemplateForm,
    read: dockerTemplateForm,
    check: dockerTemplateBody,
    field: dockerTemplateField,
    Body: TemplateBody,
  },
});
