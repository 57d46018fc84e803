// The run form's shared types: RunPanel, RunForm and RunActions each use
// them, so they live apart from all three (no import cycle).
import type { ReactNode } from 'react'

/** A student's form (class mode): only what the instructor allows. */
export interface StudentForm {
  /** Workspace mode is allowed (in a scratch folder the server gives the student). */
  workspace: boolean
  /** The class is paused: Run is off. */
  paused: boolean
  /** Shown above the form: the assignment, the pause, the student's use. */
  banner?: ReactNode
  /** The assignment's tests judge the run (on the server): no Tests panel of the student's own. */
  assignedTests?: boolean
}

/** Why Run was refused, and the form's inputs it was about (launchInputs): it shows while they stay the same. */
export interface Hint {
  text: string
  inputs: string
}
