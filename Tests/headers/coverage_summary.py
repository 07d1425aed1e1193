#!/usr/bin/env python3
"""Writes docs/API.md's header coverage counts and its list of names not provided, from
docs/HEADER-COVERAGE.tsv, so that the two documents cannot disagree.

Usage: coverage_summary.py TABLE API.md          (rewrites the two marked blocks)
       coverage_summary.py --check TABLE API.md  (exits 1, naming the block, when either
                                                 differs from what the table gives)

The blocks sit between <!-- coverage-counts --> and <!-- /coverage-counts -->, and
<!-- coverage-missing --> and <!-- /coverage-missing -->.
"""
import collections
import re
import sys

from coverage import read_table

AUDIOCODEC = 'AudioToolbox/AudioCodec.h'


def counts(rows):
    statuses = ['provided', 'not-provided']
    lines = ['| | rows | provided | not provided |', '|---|---|---|---|']

    def line(label, selected):
        tally = collections.Counter(row['status'] for row in selected)
        return '| %s | %d | %s |' % (label, len(selected), ' | '.join(str(tally[s]) for s in statuses))
    sdk = [row for row in rows if row['header'] != AUDIOCODEC]
    codec = [row for row in rows if row['header'] == AUDIOCODEC]
    lines += [line('iOS 7 SDK', sdk), line('`AudioCodec.h` (iOS 10)', codec), line('all', rows)]
    notes = collections.Counter()
    for row in rows:
        if row['status'] == 'provided':
            for note in ('AudioToolbox-ios only', 'C++ only'):
                if row['reason'].startswith(note):
                    notes[note] += 1
    lines += ['', 'Of those provided, %d are "AudioToolbox-ios only" and %d "C++ only".'
              % (notes['AudioToolbox-ios only'], notes['C++ only']), '', 'By header:', '',
              '| header | provided | not provided |', '|---|---|---|']
    order = []
    for row in rows:
        if row['header'] not in order:
            order.append(row['header'])
    for header in order:
        tally = collections.Counter(row['status'] for row in rows if row['header'] == header)
        lines.append('| `%s` | %d | %d |' % (header, tally['provided'], tally['not-provided']))
    return lines


def missing(rows):
    groups = collections.OrderedDict()
    for row in rows:
        if row['status'] == 'not-provided':
            groups.setdefault(row['reason'], []).append(row['name'])
    lines = []
    for reason, names in sorted(groups.items(), key=lambda item: -len(item[1])):
        text = '- %s%s (%d): %s.' % (reason[0].upper(), reason[1:], len(names), ', '.join('`%s`' % n for n in names))
        lines += wrap(text)
    return lines


def wrap(text, width=100):
    words, lines, current = text.split(' '), [], ''
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = '  ' + word
        else:
            current = word if not current else current + ' ' + word
    lines.append(current)
    return lines


def replace(document, name, lines):
    pattern = re.compile(r'(<!-- %s -->\n).*?(<!-- /%s -->)' % (name, name), re.S)
    if not pattern.search(document):
        sys.exit('coverage_summary.py: API.md has no <!-- %s --> block' % name)
    return pattern.sub(lambda m: m.group(1) + '\n'.join(lines) + '\n' + m.group(2), document)


def main():
    args = sys.argv[1:]
    check = args[:1] == ['--check']
    if check:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    rows = read_table(args[0])
    with open(args[1], encoding='utf-8') as f:
        document = f.read()
    written = replace(replace(document, 'coverage-counts', counts(rows)), 'coverage-missing', missing(rows))
    if check:
        if written != document:
            print('docs/API.md: the header coverage counts or the list of names not provided differ from '
                  'docs/HEADER-COVERAGE.tsv (run Tests/headers/coverage_summary.py docs/HEADER-COVERAGE.tsv docs/API.md)')
            sys.exit(1)
        return
    with open(args[1], 'w', encoding='utf-8') as f:
        f.write(written)


if __name__ == '__main__':
    main()
