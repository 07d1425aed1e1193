#!/usr/bin/env bash
# Makes the test media with independent encoders (sox and ffmpeg's command-line tools,
# not our code): one second of a 440 Hz sine at 44.1 kHz, stereo at half scale, in every
# container and codec the file services read, plus the raw samples each should decode to.
# Usage: make-media.sh DIR
set -euo pipefail
dir=${1:?usage: make-media.sh DIR}
mkdir -p "$dir"
cd "$dir"
q() { "$@" >/dev/null 2>&1 || { echo "make-media: failed: $*" >&2; exit 1; }; }
ff() { q ffmpeg -nostdin -loglevel error -y "$@"; }
# The source: 44100 frames, left 440 Hz, right 660 Hz, both at half scale, as 16-bit.
q sox -n -r 44100 -b 16 -c 2 source.wav synth 1 sine 440 sine 660 vol 0.5
# Its samples as the readers' client formats: 16-bit and 32-bit float little-endian.
q sox source.wav -t raw -e signed -b 16 -L source.s16
q sox source.wav -t raw -e floating-point -b 32 -L source.f32
# Linear PCM in each container, both byte orders, 8 to 32 bits and float.
q sox source.wav pcm16.wav
q sox source.wav -b 24 pcm24.wav
q sox source.wav -e floating-point -b 32 float32.wav
q sox source.wav -b 8 -e unsigned pcm8.wav
# 32-bit integers at full precision (more than a Float32 holds), and their samples.
q sox -n -r 44100 -b 32 -c 2 pcm32.wav synth 1 sine 440 sine 660 vol 0.5
q sox pcm32.wav -t raw -e signed -b 32 -L pcm32.s32
q sox source.wav pcm16.aiff
q sox source.wav -b 24 pcm24.aiff
q sox source.wav -t aifc pcm16.aifc
ff -i source.wav -c:a pcm_s16le pcm16le.caf
ff -i source.wav -c:a pcm_s24be pcm24be.caf
ff -i source.wav -c:a pcm_f32le float32.caf
# Companded and ADPCM.
q sox source.wav -e u-law ulaw.wav
q sox source.wav -e a-law alaw.wav
q sox ulaw.wav -t raw -e signed -b 16 -L ulaw.s16
q sox alaw.wav -t raw -e signed -b 16 -L alaw.s16
ff -i source.wav -c:a adpcm_ima_qt ima4.caf
ff -i source.wav -c:a adpcm_ima_qt -f aiff ima4.aifc
# Lossy and lossless compressed.
ff -i source.wav -c:a aac -b:a 256k aac.m4a
ff -i source.wav -c:a aac -b:a 256k -f adts aac.aac
ff -i source.wav -c:a libmp3lame -b:a 320k mp3.mp3
ff -i source.wav -c:a alac alac.caf
ff -i source.wav -c:a alac alac.m4a
# For Audio File Stream: MPEG-4 with 'moov' first (streamable), variable-rate MP3, and
# MP3 as a radio station sends it (no ID3 tag, no Xing frame).
ff -i source.wav -c:a aac -b:a 256k -movflags +faststart aac-fast.m4a
ff -i source.wav -c:a alac -movflags +faststart alac-fast.m4a
ff -i source.wav -c:a libmp3lame -q:a 4 mp3-vbr.mp3
ff -i source.wav -c:a libmp3lame -b:a 128k -write_xing 0 -id3v2_version 0 mp3-radio.mp3
# Not audio at all, and broken audio.
head -c 4096 /dev/urandom > garbage.wav
: > empty.wav
head -c 3000 aac.m4a > truncated.m4a
head -c 30 pcm16.wav > header-only.wav
# Tagged files, as a player shows them: ID3 in an MP3, iTunes metadata in an M4A.
tags=(-metadata title="Tone Poem" -metadata artist="Sine Ensemble" -metadata album="Test Signals"
      -metadata genre=Electronic -metadata date=2014 -metadata track=3 -metadata comment="made by ffmpeg")
ff -i source.wav -c:a libmp3lame -b:a 128k "${tags[@]}" tagged.mp3
ff -i source.wav -c:a aac -b:a 128k "${tags[@]}" tagged.m4a
echo done
