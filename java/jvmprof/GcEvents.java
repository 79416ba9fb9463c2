/*
 * GcEvents.java: tells the jvmprof agent (trace=mem, trace=mem:light) what
 * each garbage collection was: young or full, which collector, why, and the
 * heap used before and after it (-1 each when the report has none: ZGC's
 * pauses). The JVM's GarbageCollectorMXBeans report
 * each collection once it is over; the agent joins the report (young or
 * full, and the collection's number, GcInfo.getId()) to the pause whose
 * start and end it timed through JVMTI. The agent registers
 * the listener once; it is not part of the public API.
 */
package jvmprof;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

final class GcEvents implements NotificationListener {
    private final Set<String> heapPools;

    private GcEvents(Set<String> heapPools) {
        this.heapPools = heapPools;
    }

    /**
     * Registers the listener on every collector; returns the collectors' names, or null if the JVM has no such
     * notifications.
     */
    static String[] start() {
        try {
            Set<String> heap = new HashSet<>();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans())
                if (pool.getType() == MemoryType.HEAP)
                    heap.add(pool.getName());
            List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
            String[] names = new String[beans.size()];
            GcEvents listener = new GcEvents(heap);
            boolean any = false;
            for (int i = 0; i < names.length; i++) {
                GarbageCollectorMXBean gc = beans.get(i);
                names[i] = gc.getName();
                if (gc instanceof NotificationEmitter) {
                    ((NotificationEmitter) gc).addNotificationListener(listener, null, null);
                    any = true;
                }
            }
            return any ? names : null;
        } catch (Throwable t) {
            return null;
        }
    }

    private long heapUsed(Map<String, MemoryUsage> pools) {
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : pools.entrySet())
            if (heapPools.contains(e.getKey()))
                used += e.getValue().getUsed();
        return used;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        try {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()))
                return;
            GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            GcInfo gc = info.getGcInfo();
            /* G1, Parallel, Serial: "end of major GC"; generational ZGC (JDK 23+): its "ZGC Major Pauses" say
             * "end of GC pause" */
            boolean major = info.getGcAction().contains("major") || info.getGcName().contains("Major");
            /* ZGC's pauses record no usage (every pool 0 before and after): -1, unknown (the agent reads
             * ZGC's heap counters instead) */
            long before = heapUsed(gc.getMemoryUsageBeforeGc()), after = heapUsed(gc.getMemoryUsageAfterGc());
            if (before == 0 && after == 0)
                before = after = -1;
            collected0(info.getGcName(), major, info.getGcCause(), gc.getStartTime(), gc.getEndTime(), before, after,
                       gc.getId());
        } catch (Throwable t) {
            // a notification the agent cannot read is left out; the program never sees it
        }
    }

    private static native void collected0(String collector, boolean major, String cause, long startMs, long endMs,
                                          long usedBefore, long usedAfter, long id);
}
