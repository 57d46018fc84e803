Unicode true
# A 64-bit installer for the 64-bit app (NSIS 3 ships amd64 stubs and plugins): it needs no WOW64, and
# it runs under wine64 alone, which is how scripts/install-test-windows.sh tries it on Linux.
Target amd64-unicode

####
## loopforge's Windows installer, from the Wails v2.15 template (wails build -platform windows/amd64 -nsis
## runs makensis on it, from this folder). What differs from the template:
##  - it installs both binaries: loopforge-desktop.exe (the Wails window, which the shortcuts open) and
##    loopforge.exe (the CLI and web server, for a terminal);
##  - the version, the CLI's path and the installer's name come from ..\..\bin\nsis-release.nsh, which
##    scripts/release.sh writes before the build (without it: 0.0.0, ..\..\bin\loopforge.exe);
##  - SetDateSave off: files do not carry their build time into the installer (same input, same bytes).
## wails_tools.nsh, next to this file, is written by every wails build from wails.json (not committed);
## it defines only what is not defined here. Silent install: loopforge_..._setup.exe /S [/D=C:\dir]
## (elevated, since it installs for all users under Program Files); uninstall.exe /S likewise.
####
!include /NONFATAL "..\..\bin\nsis-release.nsh"
!ifndef INFO_PRODUCTVERSION
    !define INFO_PRODUCTVERSION "0.0.0"
!endif
!ifndef LOOPFORGE_NUMERIC_VERSION
    !define LOOPFORGE_NUMERIC_VERSION "0.0.0"
!endif
!ifndef LOOPFORGE_CLI
    !define LOOPFORGE_CLI "..\..\bin\loopforge.exe"
!endif
!define PRODUCT_EXECUTABLE "loopforge-desktop.exe"
!define INFO_COMPANYNAME   "loopforge"
!define UNINST_KEY_NAME    "loopforge"  # the template's is company + product: loopforgeloopforge

!include "wails_tools.nsh"

!ifndef LOOPFORGE_OUTFILE
    !define LOOPFORGE_OUTFILE "..\..\bin\loopforge-${ARCH}-installer.exe"
!endif

# The version information for this two must consist of 4 numeric parts
VIProductVersion "${LOOPFORGE_NUMERIC_VERSION}.0"
VIFileVersion    "${LOOPFORGE_NUMERIC_VERSION}.0"

VIAddVersionKey "CompanyName"     "${INFO_COMPANYNAME}"
VIAddVersionKey "FileDescription" "${INFO_PRODUCTNAME} Installer"
VIAddVersionKey "ProductVersion"  "${INFO_PRODUCTVERSION}"
VIAddVersionKey "FileVersion"     "${INFO_PRODUCTVERSION}"
VIAddVersionKey "LegalCopyright"  "${INFO_COPYRIGHT}"
VIAddVersionKey "ProductName"     "${INFO_PRODUCTNAME}"

# Enable HiDPI support. https://nsis.sourceforge.io/Reference/ManifestDPIAware
ManifestDPIAware true

SetDateSave off

!include "MUI.nsh"

!define MUI_ICON "..\icon.ico"
!define MUI_UNICON "..\icon.ico"
!define MUI_FINISHPAGE_NOAUTOCLOSE
!define MUI_ABORTWARNING

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

Name "${INFO_PRODUCTNAME}"
OutFile "${LOOPFORGE_OUTFILE}"
!ifdef WAILS_INSTALL_SCOPE
  !if "${WAILS_INSTALL_SCOPE}" == "user"
    InstallDir "$LOCALAPPDATA\Programs\${INFO_PRODUCTNAME}"
  !else
    InstallDir "$PROGRAMFILES64\${INFO_PRODUCTNAME}"
  !endif
!else
  InstallDir "$PROGRAMFILES64\${INFO_PRODUCTNAME}"
!endif
ShowInstDetails show

Function .onInit
   !insertmacro wails.checkArchitecture
FunctionEnd

Section
    !insertmacro wails.setShellContext

    !insertmacro wails.webview2runtime

    SetOutPath $INSTDIR

    !insertmacro wails.files
    File "/oname=loopforge.exe" "${LOOPFORGE_CLI}"

    CreateShortcut "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"
    CreateShortCut "$DESKTOP\${INFO_PRODUCTNAME}.lnk" "$INSTDIR\${PRODUCT_EXECUTABLE}"

    !insertmacro wails.associateFiles
    !insertmacro wails.associateCustomProtocols

    !insertmacro wails.writeUninstaller
SectionEnd

Section "uninstall"
    !insertmacro wails.setShellContext

    RMDir /r "$AppData\${PRODUCT_EXECUTABLE}" # the WebView2 data folder; the history (%APPDATA%\loopforge) stays

    # Only what the installer put there (the template's RMDir /r $INSTDIR would empty any folder chosen with /D).
    Delete "$INSTDIR\${PRODUCT_EXECUTABLE}"
    Delete "$INSTDIR\loopforge.exe"

    Delete "$SMPROGRAMS\${INFO_PRODUCTNAME}.lnk"
    Delete "$DESKTOP\${INFO_PRODUCTNAME}.lnk"

    !insertmacro wails.unassociateFiles
    !insertmacro wails.unassociateCustomProtocols

    !insertmacro wails.deleteUninstaller
    RMDir "$INSTDIR"
SectionEnd
