#!/bin/sh
# kubectl octomy: octomy-batch's kubectl plugin. This file is a shell launcher followed by the
# octomy-batch jar; put it on the PATH as kubectl-octomy and run `kubectl octomy --help`.
# Java 17 or later: JAVA_HOME/bin/java when JAVA_HOME is set, else java on the PATH.
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" -XX:TieredStopAtLevel=1 -Xshare:auto -cp "$0" io.octomy.batch.plugin.OctomyPlugin "$@"
