/*
 * A stand-in for Windows' bcryptprimitives.dll, for the Wine prefix of scripts/wine-test.sh only.
 *
 * Why: every Windows program built by Go >= 1.22 loads bcryptprimitives.dll from system32 when it
 * starts and calls its ProcessPrng for random bytes; without it the Go runtime aborts before main
 * ("fatal error: bcryptprimitives.dll not found"). Wine 8.0 (Debian 12's wine64) has no such DLL
 * (Wine added one in 8.13). That is a gap of this machine's Wine, not of loopforge: every
 * Windows 10/11 has the DLL, and this file is never shipped or installed outside the test prefix.
 *
 * Hand-written because no Debian package provides the DLL for Wine 8; it is one function.
 * ProcessPrng fills the buffer from the system RNG through advapi32's RtlGenRandom
 * (SystemFunction036), which Wine implements over the host's random source. Like the real one it
 * takes a SIZE_T length; RtlGenRandom takes a ULONG, so large buffers are filled in chunks. The
 * real ProcessPrng never fails; this one returns FALSE if the RNG does, so a failure is loud in Go
 * (the runtime throws) rather than silently weak.
 */
#include <windows.h>
#include <ntsecapi.h> /* RtlGenRandom = SystemFunction036 */

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    const SIZE_T chunk = 1u << 30;
    while (len > 0) {
        ULONG n = (ULONG)(len < chunk ? len : chunk);
        if (!RtlGenRandom(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
    (void)inst; (void)reason; (void)reserved;
    return TRUE;
}
