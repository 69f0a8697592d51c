package io.octomy.batch.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The admission controller against a cluster (ambient kubeconfig or in-cluster config). */
@Command(name = "controller", mixinStandardHelpOptions = true,
    description = "Run the admission controller against the cluster of the ambient kubeconfig or the in-cluster config.")
public final class ControllerCommand implements Callable<Integer> {

  @Mixin
  PolicyOption policy;

  @Override
  public Integer call() throws Exception {
    policy.load();
    System.err.println("controller mode is not available yet in this build");
    return 3;
  }
}
