# bench/agent_opt.sh — sourced by run.sh and paired.sh: a benchmark configuration
# (none, jfr, jfr-profile, floor=N, ap:OPTS, base:OPTS, jvm:OPTION, or jvmprof's option string)
# turned into the JVM option that loads it, and the file its report goes to.
# Reads AGENT, and as a configuration needs them AP_LIB, BASE_AGENT, FLOOR_AGENT.

# agent option string -> JVM option (empty for none); $2 = report file
agent_opt() {
    local cfg=$1 report=$2 agent=$AGENT
    if [[ $cfg == base:* ]]; then # another build, with the same rules for its options
        agent=${BASE_AGENT:?base:OPTS needs BASE_AGENT}
        cfg=${cfg#base:}
    fi
    case $cfg in
        none) ;;
        -) printf -- '-agentpath:%s' "$agent" ;;
        jfr) printf -- '-XX:StartFlightRecording=dumponexit=true,filename=%s,settings=default' "$report" ;;
        jfr-profile) printf -- '-XX:StartFlightRecording=dumponexit=true,filename=%s,settings=profile' "$report" ;;
        # one JVM option and no agent, e.g. jvm:-XX:Flags=FILE for the cost of a VM flag alone
        jvm:*) printf -- '%s' "${cfg#jvm:}" ;;
        floor=*) printf -- '-agentpath:%s=%s' "${FLOOR_AGENT:?floor=N needs FLOOR_AGENT (bench/alloc_floor.sh)}" "${cfg#floor=}" ;;
        ap:*) printf -- '-agentpath:%s=start,%s,file=%s' "$AP_LIB" "${cfg#ap:}" "$(report_of "$cfg" "$report")" ;;
        # trace= alone writes no report (file= is refused with it): its trace goes beside the report
        trace=*) if [[ $cfg == *,cpu=* || $cfg == *,heap=* || $cfg == *,monitor=* || $cfg == *,wall=* ]]; then
                printf -- '-agentpath:%s=%s,file=%s,tracefile=%s.trace' "$agent" "$cfg" "$report" "$report"
            else
                printf -- '-agentpath:%s=%s,tracefile=%s.trace' "$agent" "$cfg" "$report"
            fi ;;
        *) printf -- '-agentpath:%s=%s,file=%s' "$agent" "$cfg" "$report" ;;
    esac
}

# report_of CONFIG REPORT: the file the configuration writes (async-profiler's beside the report's name)
report_of() {
    case $1 in
        ap:*) printf '%s' "${2%.txt}.ap.out" ;;
        *) printf '%s' "$2" ;;
    esac
}
