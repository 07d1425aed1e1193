#!/usr/bin/env python3
"""Writes the header coverage program from docs/HEADER-COVERAGE.tsv.

Usage: coverage.py TABLE OUT.c

Every row whose status is "provided" becomes a line of OUT.c that does not compile when
the headers we ship lack the name:
  function, extern   sizeof(&name)            (the declaration, not the export: scripts/
                                              check-exports.sh checks that every declared
                                              function is exported)
  enum, macro        a static assertion of Apple's value when the table has one (of its 32
                     bits when bit 31 is set), else the value converted to long long; a
                     string macro is compared
                     with strcmp when the program runs; a function-like macro, or one
                     that expands to an attribute, is #ifdef'd
  typedef, callback  sizeof(name *)
  struct             sizeof(struct name) and sizeof(name): the tag and the typedef, defined
A function the SDK declares for C++ only (reason "C++ only") is checked in C++ alone; a
name whose reason says "AudioToolbox-ios only" is checked where TARGET_OS_IPHONE is 1.
The program prints "header-coverage ok: N names, V values" (those checked in the module
it was built with) and exits 0, or prints each wrong string value and exits 1. Compile it as C11 or C++11 (static assertions).
"""
import re
import sys

COLUMNS = ['name', 'header', 'kind', 'status', 'value', 'reason']
KINDS = {'function', 'extern', 'enum', 'macro', 'typedef', 'callback', 'struct', 'struct-tag'}
STATUSES = {'provided', 'not-provided', 'next'}


def read_table(path):
    rows = []
    with open(path, encoding='utf-8') as table:
        for number, line in enumerate(table, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            fields = line.split('\t')
            if fields == COLUMNS:
                continue
            if len(fields) != len(COLUMNS):
                sys.exit('%s:%d: %d columns, want %d' % (path, number, len(fields), len(COLUMNS)))
            row = dict(zip(COLUMNS, fields))
            if row['kind'] not in KINDS:
                sys.exit('%s:%d: unknown kind %r' % (path, number, row['kind']))
            if row['status'] not in STATUSES:
                sys.exit('%s:%d: unknown status %r' % (path, number, row['status']))
            if row['status'] != 'provided' and not row['reason']:
                sys.exit('%s:%d: %s is %s without a reason' % (path, number, row['name'], row['status']))
            row['line'] = number
            rows.append(row)
    names = [row['name'] for row in rows]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        sys.exit('%s: listed twice: %s' % (path, ', '.join(duplicates)))
    return rows


def integer_value(text):
    """Apple's value as a number, or None when the row has no numeric value. The table
    spells four-character codes as the SDK does ('acat'); C compilers warn about such
    multi-character constants, so the program gets the number."""
    code = re.fullmatch(r"'([ -~]{4})'", text)
    if code:
        number = 0
        for character in code.group(1):
            number = (number << 8) | ord(character)
        return number
    if re.fullmatch(r'-?\d+|0[xX][0-9a-fA-F]+', text):
        return int(text, 0)
    return None


def check_lines(row):
    name, kind, value = row['name'], row['kind'], row['value']
    if kind in ('function', 'extern'):
        return ['    (void)sizeof(&%s);' % name], 0
    if kind in ('typedef', 'callback'):
        return ['    (void)sizeof(%s *);' % name], 0
    if kind == 'struct':
        return ['    (void)sizeof(struct %s); (void)sizeof(%s);' % (name, name)], 0
    if kind == 'struct-tag':
        return ['    (void)sizeof(struct %s);' % name], 0
    # enum and macro constants
    if value.startswith('"'):
        return ['    CHECK_STRING(%s, %s);' % (name, value)], 1
    if value.startswith('fixed:'):
        fixed, floating = re.fullmatch(r'fixed:(\S+);float:(\S+)', value).groups()
        return ['#if CA_PREFER_FIXED_POINT',
                '    CHECK_VALUE(%s, %sLL);' % (name, fixed),
                '#else',
                '    CHECK_VALUE(%s, %sLL);' % (name, floating),
                '#endif'], 1
    number = integer_value(value)
    if number is not None:
        if 2 ** 31 <= number < 2 ** 32:
            # Bit 31 set: an ISO C enumerator is an int, so compare the 32 bits.
            return ['    CHECK_VALUE32(%s, %dU);' % (name, number)], 1
        return ['    CHECK_VALUE(%s, %dLL);' % (name, number)], 1
    if value in ('function-like', 'attribute'):
        return ['#ifndef %s' % name, '#error "%s is not defined"' % name, '#endif'], 0
    return ['    (void)(long long)(%s);' % name], 0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = read_table(sys.argv[1])
    provided = [row for row in rows if row['status'] == 'provided']
    values = 0
    body = []
    for row in provided:
        lines, counted = check_lines(row)
        values += counted
        guard = None
        if row['reason'].startswith('C++ only'):
            guard = 'defined(__cplusplus)'
        elif row['reason'].startswith('AudioToolbox-ios only'):
            guard = 'TARGET_OS_IPHONE'
        body.append('    /* %s (%s) */' % (row['name'], row['header']))
        if guard:
            body.append('#if %s' % guard)
        body.extend(lines)
        body.append('    names++;' if not counted else '    names++; values++;')
        if guard:
            body.append('#endif')
    counts = {status: sum(1 for row in rows if row['status'] == status) for status in STATUSES}
    with open(sys.argv[2], 'w', encoding='utf-8') as out:
        out.write('''/* Written by Tests/headers/coverage.py from docs/HEADER-COVERAGE.tsv: every name the
 * table calls "provided" (%(provided)d of %(total)d; %(not)d not provided, %(next)d next), with
 * Apple's value where the table gives one. Do not edit: edit the table. */
#include <AudioToolbox/AudioToolbox.h>
#include <AudioToolbox/AudioCodec.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#define COVERAGE_ASSERT(c, m) static_assert(c, m)
#else
#define COVERAGE_ASSERT(c, m) _Static_assert(c, m)
#endif
#define CHECK_VALUE(name, value) COVERAGE_ASSERT((long long)(name) == (value), #name " has Apple's value")
#define CHECK_VALUE32(name, value) COVERAGE_ASSERT((UInt32)(name) == (value), #name " has Apple's 32 bits")
#define CHECK_STRING(name, value) \\
    do { if (strcmp((name), (value)) != 0) { printf("%%s is \\"%%s\\", Apple's is \\"%%s\\"\\n", #name, (name), (value)); wrong++; } } while (0)

int main(void)
{
    int wrong = 0, names = 0, values = 0;
''' % {'provided': len(provided), 'total': len(rows), 'not': counts['not-provided'], 'next': counts['next']})
        out.write('\n'.join(body) + '\n')
        out.write('''    if (wrong != 0)
        return 1;
    printf("header-coverage ok: %d names, %d values\\n", names, values);
    return 0;
}
''')
    print('coverage.py: %d provided names (%d values) written to %s' % (len(provided), values, sys.argv[2]))


if __name__ == '__main__':
    main()
