package io.octomy.batch; public class Main { public static void main(String[] a){} }
