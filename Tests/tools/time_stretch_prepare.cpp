// The time and pitch units' promise about SoundTouch, checked on SoundTouch itself: after
// TimeStretchPrepare (our TimeStretch.cpp, compiled in here), putting blocks of up to the
// prepared size at any tempo between the extremes, and receiving what comes out render by
// render, never allocates. SoundTouch grows its buffers with new[]; this program counts
// every new[] made after the prepare over 30000 renders of random tempos and blocks
// (seeded: a run repeats the last). Exits 1 and prints where, on the first allocation.
#include "../../Sources/CLibraries/CTimeStretch/TimeStretch.cpp"
#include <cstdio>
#include <cstdlib>

static long allocations;
static bool counting;
void *operator new[](size_t n) {
    if (counting) allocations++;
    if (void *p = malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete[](void *p) noexcept { free(p); }
void operator delete[](void *p, size_t) noexcept { free(p); }

int main() {
    // As TimePitchKernel makes it: 44.1 kHz stereo, blocks of 4 x 512 + 64 resampled
    // frames, 4096 frames received at most, tempos 1/32 to 32.
    const int block = 4 * 512 + 64, held = 4096, rounds = 30000;
    TimeStretch *stretch = TimeStretchNew(44100, 2);
    if (!stretch) return 1;
    TimeStretchPrepare(stretch, block, held, 1.0 / 32, 32);
    static float in[block * 2], out[held * 2];
    const double tempos[] = {1.0 / 32, 0.125, 0.25, 0.7, 1, 2, 3, 4, 8, 11, 16, 32};
    srand(1);
    counting = true;
    for (int render = 0; render < rounds; render++) {
        if (render % 3 == 0) TimeStretchSetTempo(stretch, tempos[rand() % 12]);
        int frames = 1 + rand() % held, done = 0;
        while (done < frames) {
            int ready = TimeStretchAvailable(stretch);
            if (ready > 0) {
                done += TimeStretchReceive(stretch, out, ready < frames - done ? ready : frames - done);
                continue;
            }
            long before = allocations;
            int put = 1 + rand() % block;
            TimeStretchPut(stretch, in, put);
            if (allocations != before) {
                printf("FAIL time stretch: an allocation in render %d, putting %d frames\n", render, put);
                return 1;
            }
        }
    }
    counting = false;
    TimeStretchFree(stretch);
    printf("PASS time stretch: %d renders of random tempos and blocks after the prepare, no allocation\n", rounds);
    return 0;
}
