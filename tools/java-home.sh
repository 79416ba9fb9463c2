#!/bin/sh
# Prints the JDK to build against: $JAVA_HOME if set and valid, else OpenJDK 17
# where Debian puts it, else the JDK that owns `javac` on PATH.
for d in "$JAVA_HOME" /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64; do
    if [ -n "$d" ] && [ -x "$d/bin/javac" ] && [ -f "$d/include/jvmti.h" ]; then echo "$d"; exit 0; fi
done
if command -v javac >/dev/null 2>&1; then
    dirname "$(dirname "$(readlink -f "$(command -v javac)")")"
    exit 0
fi
echo /usr/lib/jvm/java-17-openjdk-amd64
