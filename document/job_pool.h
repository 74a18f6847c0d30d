// The threads the window's long work runs on: dump scans, comparisons, replays, the hunt's and
// the spread's steps, a tensor's summary. Never Qt's global pool: Qt paints in segments on that
// pool (the raster engine, image scaling) and waits for them on the GUI thread, so a job that
// waits for the GUI thread there (a scan handing its rounds over) deadlocks the window where the
// pool has one thread (a process allowed one core: QThread::idealThreadCount follows the
// affinity), and a long comparison holding its threads stalls the painting.
#pragma once

class QThreadPool;

// Process-wide, at least two threads (a scan waiting for the GUI thread never holds up another
// job), as many as the cores allowed beyond that.
QThreadPool *jobPool();
