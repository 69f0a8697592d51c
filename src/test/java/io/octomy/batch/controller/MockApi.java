package io.octomy.batch.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test support for the fabric8 mock API server. */
final class MockApi {
  private MockApi() {}

  /** A started mock API server in CRUD mode: it stores what it is sent and serves it back, watches included. */
  static io.fabric8.kubernetes.client.server.mock.KubernetesMockServer crudServer() {
    var server = new io.fabric8.kubernetes.client.server.mock.KubernetesMockServer(new io.fabric8.mockwebserver.Context(),
        new io.fabric8.mockwebserver.MockWebServer(), new java.util.HashMap<>(),
        new io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher(), false);
    server.init();
    return server;
  }

  /** Installs the committed CRDs, as a cluster admin would before starting the controller. */
  static void installCrds(KubernetesClient client) {
    for (String crd : new String[] {"batchjobs", "batchnodes", "batchjobprofiles"}) {
      try (InputStream in = Files.newInputStream(Path.of("crds", crd + ".batch.octomy.io.yaml"))) {
        client.apiextensions().v1().customResourceDefinitions().load(in).create();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
